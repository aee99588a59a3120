import CheckTranscript
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeps what the Swift runtime says when an exit test's process crashes, so
/// that the check shows the learner's own crash (a nil force unwrap, say) in
/// the runtime's words, before the check's own words on what usually causes
/// the crash it guards against; and the verdicts of the kit's failures
/// inside the exit test, whose attachments Swift Testing does not bring back
/// from its process (it brings back only the issues), so that the check
/// attaches them after it.
///
/// An exit test's process does not share the test's standard error, and an
/// exit test that fails returns no result to read it from; so the exit test
/// writes its standard error to a file named after the check and the test
/// process, and the check reads it back:
///
///     let result = await CrashLog.awaiting {
///       await #expect(
///         processExitsWith: .success,
///         "The app survives ... A crash here usually comes from resuming a continuation twice."
///       ) {
///         CrashLog.keepStandardError(of: "both")
///         ...
///       }
///     }
///     CrashLog.explain(result, of: "both")
public enum CrashLog {
  /// Awaits an exit test (`body`). While its process runs, the check counts
  /// as moving for the runner (``Heartbeat``): that process has a watchdog
  /// of its own, and records nothing this one sees until it ends.
  ///
  ///     let result = await CrashLog.awaiting {
  ///       await #expect(processExitsWith: .success) { ... }
  ///     }
  public static func awaiting<Result>(_ body: () async -> Result) async -> Result {
    await Pulse.awaitingExitTest(body)
  }

  /// Inside the exit test: sends its standard error to the file for
  /// `name`, and the verdicts of the kit's failures to another.
  public static func keepStandardError(of name: String) {
    verdicts.withLock { $0 = file(name, testProcess: getppid(), suffix: "verdicts") }
    standardError.withLock { $0 = file(name, testProcess: getppid()) }
    let descriptor = open(file(name, testProcess: getppid()).path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { return }
    dup2(descriptor, STDERR_FILENO)
    close(descriptor)
  }

  /// Where this exit test's process keeps the verdicts of its failures;
  /// nil outside an exit test that keeps them.
  private static let verdicts = Mutex<URL?>(nil)

  /// Where this exit test's process writes its standard error; nil outside
  /// an exit test that keeps it.
  private static let standardError = Mutex<URL?>(nil)

  /// Inside an exit test that keeps its standard error, once the Swift
  /// runtime has said it is stopping the process (a fatal error, a crash):
  /// waits for the end, up to 30 s, instead of letting the check record a
  /// failure. Whatever the check would record then, a wait that gave up
  /// because the crashing thread never finished, say, is the crash's
  /// consequence, and whether it came before the end would depend on how
  /// long the runtime's backtrace took on a busy machine: the check's
  /// verdict is the crash, the same every run. Outside such an exit test,
  /// or when nothing stops the process, returns at once.
  static func waitIfTheProcessIsStopping() {
    guard let url = standardError.withLock({ $0 }),
      let text = try? String(contentsOf: url, encoding: .utf8),
      RuntimeMessage.saysItIsStopping(text)
    else { return }
    for _ in 0..<300 { usleep(100_000) }
  }

  /// Inside an exit test that keeps them, appends `verdict` to its verdicts.
  static func keep(_ verdict: Verdict) {
    verdicts.withLock { url in
      guard let url else { return }
      let descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
      guard descriptor >= 0 else { return }
      defer { close(descriptor) }
      let line = verdict.attachmentBytes + [UInt8(ascii: "\n")]
      _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
  }

  /// After the exit test: attaches the verdicts of the kit's failures in
  /// its process, and when it failed and the runtime said why, records what
  /// it said. A process that ended for another reason (the body threw, or
  /// an expectation in it failed) has no runtime message, and gets none.
  public static func explain(
    _ result: ExitTest.Result?, of name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let kept = file(name, testProcess: getpid(), suffix: "verdicts")
    defer { try? FileManager.default.removeItem(at: kept) }
    let lines = ((try? Data(contentsOf: kept)) ?? Data()).split(separator: UInt8(ascii: "\n"))
    for line in lines {
      guard let verdict = Verdict(attachment: Array(line)) else { continue }
      EventLog.attach(verdict, sourceLocation: sourceLocation)
    }
    let url = file(name, testProcess: getpid())
    defer { try? FileManager.default.removeItem(at: url) }
    // A result means the process ended as expected.
    guard result == nil else { return }
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    let said = RuntimeMessage.lines(in: text)
    guard !said.isEmpty else { return }
    EventLog.record(Verdict(behaviour: "", events: [], runtimeSaid: said), sourceLocation: sourceLocation)
  }

  private static func file(_ name: String, testProcess: pid_t, suffix: String = "stderr") -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "exit-test-\(testProcess)-\(name).\(suffix)")
  }
}
