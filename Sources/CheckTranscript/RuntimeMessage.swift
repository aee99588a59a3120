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

  /// At most three distinct lines that say why, each at most 300 characters.
  public static func lines(in standardError: String) -> [String] {
    var reasons: [String] = []
    for line in standardError.split(separator: "\n") {
      let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
      let text = String(line.drop(while: blank).reversed().drop(while: blank).reversed())
      guard markers.contains(where: { text.contains($0) }), !reasons.contains(text) else { continue }
      reasons.append(text.count > 300 ? String(text.prefix(300)) + "..." : text)
      if reasons.count == 3 { break }
    }
    return reasons
  }
}

/// What the runner and the test kit say about a check that never finished.
public enum Stuck {
  /// The likely causes, in the learner's words.
  public static let cause =
    "Something blocks forever or spins: a lock or semaphore held across an await, or an endless loop?"
}
