import Foundation

/// Why a check failed, as values: the behaviour it expects, what it expected
/// and what happened, and the events recorded while it ran.
///
/// The test kit records a verdict twice for each failure: as the issue's
/// comment in prose (``text``), which Xcode and `swift test` show, and as an
/// attachment of the same values in JSON (``attachmentBytes``), which the
/// workshop's runner decodes. The runner never parses the prose: it only
/// compares it whole with an issue's comment, to give each issue its
/// verdict. The prose:
///
///     The late answer for "sw" is dropped
///     Expected: [Swift Book]
///     Actual:   [Sweater]
///     Recorded events:
///       1. user typed "sw"
///       2. search("sw") called
public struct Verdict: Sendable, Equatable, Codable {
  /// The behaviour the check expects, in plain words.
  public var behaviour: String
  /// What the check expected, when it compared values.
  public var expected: String?
  /// What happened instead.
  public var actual: String?
  /// The events recorded while the check ran, oldest first.
  public var events: [RecordedEvent]
  /// The operation the kit's hang guard gave up waiting for, as the check
  /// named it (`profile(id:)`).
  public var unfinished: String?
  /// What the Swift runtime said as an exit test's process crashed, a line
  /// each: the runner shows it right after the crash.
  public var runtimeSaid: [String]
  /// Set when the check could not decide (the machine was too busy for its
  /// threads to meet): the runner runs it again with more time, and reports
  /// it as undecided, neither passed nor failed, if it still cannot.
  public var undecided: Bool? = nil
  /// Marks the JSON as a verdict of this layout, among whatever else a
  /// check attaches.
  public var format = Self.currentFormat

  public init(
    behaviour: String, expected: String? = nil, actual: String? = nil, events: [RecordedEvent],
    unfinished: String? = nil, runtimeSaid: [String] = []
  ) {
    self.behaviour = behaviour
    self.expected = expected
    self.actual = actual
    self.events = events
    self.unfinished = unfinished
    self.runtimeSaid = runtimeSaid
  }

  /// The layout this module writes and reads.
  public static let currentFormat = "workshop-verdict-1"

  /// The attachment's name, as Xcode's report lists it.
  public static let attachmentName = "verdict.json"

  /// The largest attachment the runner decodes, in bytes.
  public static let largestAttachment = 4 << 20

  /// The verdict in JSON, as the kit attaches it.
  public var attachmentBytes: [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? Array(encoder.encode(self))) ?? []
  }

  /// Decodes an attachment; nil for anything that is not a verdict of this layout.
  public init?(attachment bytes: [UInt8]) {
    guard bytes.count <= Self.largestAttachment,
      let verdict = try? JSONDecoder().decode(Verdict.self, from: Data(bytes)),
      verdict.format == Self.currentFormat
    else { return nil }
    self = verdict
  }

  // MARK: - Prose

  /// The numbered events, as shown under the verdict.
  public var transcript: String {
    guard !events.isEmpty else { return "Recorded events: (none)" }
    let lines = events.enumerated().map { index, event in "  \(index + 1). \(event.text)" }
    return (["Recorded events:"] + lines).joined(separator: "\n")
  }

  /// The verdict without its events: behaviour, then the expected and
  /// actual values when there are any.
  public var headline: String {
    var lines: [String] = []
    if !runtimeSaid.isEmpty {
      lines.append("The Swift runtime said:")
      lines += runtimeSaid.map { "  " + $0 }
    }
    if !behaviour.isEmpty { lines.append(behaviour) }
    if let expected { lines.append("Expected: " + expected) }
    if let actual { lines.append("Actual:   " + actual) }
    return lines.joined(separator: "\n")
  }

  /// The verdict in prose: the comment.
  public var text: String {
    guard !runtimeSaid.isEmpty, events.isEmpty else { return headline + "\n" + transcript }
    return headline
  }
}
