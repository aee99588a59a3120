/// The lines in which the Swift runtime says why a process died, read from
/// its standard error: the runner reads them from a crashed test process,
/// the test kit from an exit test's child.
public enum RuntimeMessage {
  /// What the runtime and its sanitizers print when they stop a process.
  static let markers = [
    "Fatal error", "fatal error", "CONTINUATION MISUSE", "Precondition failed",
    "Assertion failed", "precondition failure", "Simultaneous accesses", "Illegal instruction",
    "Segmentation fault", "ThreadSanitizer",
  ]

  /// What only a runtime stopping the process prints: not a warning such as
  /// a leaked continuation's, nor a sanitizer's report.
  static let stopping = [
    "Fatal error", "fatal error", "Precondition failed", "Assertion failed", "precondition failure",
    "Simultaneous accesses", "*** Program crashed", "Illegal instruction", "Segmentation fault",
  ]

  /// Whether `standardError` holds what the runtime prints as it stops the
  /// process (a fatal error, a crash): what follows is its backtrace, then
  /// the end of the process.
  public static func saysItIsStopping(_ standardError: String) -> Bool {
    standardError.split(separator: "\n").contains { line in stopping.contains { line.contains($0) } }
  }

  /// At most three distinct lines that say why, each at most 300
  /// characters, then where the crashed thread stopped (``stop(in:)``)
  /// when Swift's backtracer said.
  public static func lines(in standardError: String) -> [String] {
    var reasons: [String] = []
    for line in standardError.split(separator: "\n") {
      let text = trimmed(line)
      guard markers.contains(where: { text.contains($0) }), !reasons.contains(text) else { continue }
      reasons.append(text.count > 300 ? String(text.prefix(300)) + "..." : text)
      if reasons.count == 3 { break }
    }
    if !reasons.isEmpty, let stop = stop(in: standardError) { reasons.append(stop) }
    return reasons
  }

  /// The words that start the line ``stop(in:)`` writes.
  public static let stoppedAt = "Stopped at "

  /// Where the crashed thread stopped in the code under test, from the
  /// backtrace Swift's runtime prints as a process crashes (on Linux by
  /// default): the first frame of the thread marked `crashed` that is in a
  /// Swift file of the code under test, not in the checks (a folder whose
  /// name ends in `Tests`), the course's own modules (its `Sources/`) or
  /// generated code. The message of a
  /// continuation resumed twice names the function; this names the line
  /// of the second `resume`:
  ///
  ///     Thread 1 crashed:
  ///       0  0x… _assertionFailure(_:_:file:line:flags:) + 225 in libswiftCore.so
  ///       1 [ra]  0x… CheckedContinuation.resume(returning:) + 344 in libswift_Concurrency.so
  ///       2 [ra]  0x… closure #1 in profile(id:) + 89 in Tests.xctest at /w/Chapters/06-Continuations/ProfileBridge.swift:48:18
  ///
  /// gives `Stopped at 06-Continuations/ProfileBridge.swift:48, in closure #1 in profile(id:)`:
  /// the file's folder and name, never the rest of a path of the machine.
  public static func stop(in standardError: String) -> String? {
    var inCrashedThread = false
    for line in standardError.split(separator: "\n", omittingEmptySubsequences: false) {
      let text = trimmed(line)
      if text.hasPrefix("Thread ") {
        inCrashedThread = text.hasSuffix(" crashed:")
        continue
      }
      guard inCrashedThread else { continue }
      if text.isEmpty || text == "..." { continue }
      guard let frame = text.firstMatch(of: framePattern) else { continue }
      let path = frame.output.path.split(separator: "/")
      guard path.count >= 2, !path[path.count - 2].hasSuffix("Tests"),
        !frame.output.path.hasPrefix(courseSources)
      else { continue }
      let function = trimmed(frame.output.function[...])
      return stoppedAt
        + "\(path[path.count - 2])/\(path[path.count - 1]):\(frame.output.line), in \(function)"
    }
    return nil
  }

  /// The course's `Sources/` folder, as this file was compiled: the kit's
  /// frames are not the code under test.
  private static let courseSources: String = {
    var parts = "\(#filePath)".split(separator: "/")
    parts.removeLast(2)
    return "/" + parts.joined(separator: "/") + "/"
  }()

  /// A backtrace frame with a place: `0x… <function> [+ offset] in <image> at /<path>.swift:<line>[:<column>]`.
  nonisolated(unsafe) private static let framePattern =
    /0x[0-9a-fA-F]+ (?<function>.+?)(?: \+ \d+)? in \S+ at (?<path>\/[^:]+\.swift):(?<line>\d+)/

  private static func trimmed(_ line: Substring) -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    return String(line.drop(while: blank).reversed().drop(while: blank).reversed())
  }
}

/// What the runner and the test kit say about a check that never finished.
public enum Stuck {
  /// The likely causes, in the learner's words.
  public static let cause =
    "Something blocks forever or spins: a lock or semaphore held across an await, or an endless loop?"

  /// ``cause`` in Simplified Chinese, for the runner's reports in Chinese.
  public static let causeInChinese = "有东西永远阻塞或空转：是跨 await 持有的锁或信号量，还是死循环？"
}
