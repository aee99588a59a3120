/// Why a check failed, laid out the one way the test kit writes it and the
/// runner reads it back.
///
/// The kit records it as the comment of the issue that fails the check; the
/// runner finds it in Swift Testing's event stream and shows it, with the
/// recorded events once per check. Both import this module, so the layout
/// is defined here only:
///
///     The late answer for "sw" is dropped
///     Expected: [Swift Book]
///     Actual:   [Sweater]
///     Recorded events:
///       1. user typed "sw"
///       2. search("sw") started
public struct Verdict: Sendable, Equatable {
  /// The behaviour the check expects, in plain words.
  public var behaviour: String
  /// What the check expected, when it compared values.
  public var expected: String?
  /// What happened instead.
  public var actual: String?
  /// The events recorded while the check ran, oldest first.
  public var events: [String]

  public init(behaviour: String, expected: String? = nil, actual: String? = nil, events: [String]) {
    self.behaviour = behaviour
    self.expected = expected
    self.actual = actual
    self.events = events
  }

  static let expectedPrefix = "Expected: "
  static let actualPrefix = "Actual:   "
  static let eventsHeader = "Recorded events:"
  static let noEvents = "Recorded events: (none)"

  /// The numbered events, as shown under the verdict.
  public var transcript: String {
    guard !events.isEmpty else { return Self.noEvents }
    let lines = events.enumerated().map { index, event in "  \(index + 1). \(event)" }
    return ([Self.eventsHeader] + lines).joined(separator: "\n")
  }

  /// The verdict as text: the comment.
  public var text: String {
    var lines = [behaviour]
    if let expected { lines.append(Self.expectedPrefix + expected) }
    if let actual { lines.append(Self.actualPrefix + actual) }
    lines.append(transcript)
    return lines.joined(separator: "\n")
  }

  /// Reads a verdict back from its text; nil for text the kit did not write.
  public init?(parsing text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let header = lines.firstIndex(where: { $0 == Self.eventsHeader || $0 == Self.noEvents }) else {
      return nil
    }
    var head = Array(lines[..<header])
    var actual: String?
    var expected: String?
    if let last = head.last, last.hasPrefix(Self.actualPrefix) {
      actual = String(last.dropFirst(Self.actualPrefix.count))
      head.removeLast()
    }
    if let last = head.last, last.hasPrefix(Self.expectedPrefix) {
      expected = String(last.dropFirst(Self.expectedPrefix.count))
      head.removeLast()
    }
    var events: [String] = []
    if lines[header] == Self.eventsHeader {
      // "  12. search("sw") started"
      for line in lines[(header + 1)...] {
        let numbered = line.drop(while: { $0 == " " })
        guard let dot = numbered.firstIndex(of: "."), Int(numbered[..<dot]) != nil else { break }
        events.append(String(numbered[numbered.index(after: dot)...].dropFirst()))
      }
    }
    self.init(behaviour: head.joined(separator: "\n"), expected: expected, actual: actual, events: events)
  }
}
