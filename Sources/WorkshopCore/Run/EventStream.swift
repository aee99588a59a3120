import Foundation

/// The outcome of one graded check (one `@Test`).
public struct CheckResult: Sendable, Equatable, Codable {
  public enum Status: String, Sendable, Equatable, Codable {
    case passed
    case failed
    /// Started but never ended: the process died or was killed while it ran.
    case interrupted
    case skipped
  }

  /// Swift Testing's ID for the test.
  public var id: String
  /// The check's display name, in plain words.
  public var name: String
  public var status: Status
  /// What went wrong, one entry per recorded issue.
  public var issues: [String]

  public init(id: String, name: String, status: Status, issues: [String] = []) {
    self.id = id
    self.name = name
    self.status = status
    self.issues = issues
  }
}

/// Reads Swift Testing's JSON event stream (`--event-stream-version 0`).
///
/// Grading reads this channel, never the human-readable output, which code
/// under test could imitate by printing.
public enum EventStream {
  /// The checks described by an event stream, in the order they were declared.
  ///
  /// Tests that started but never ended, and tests that never started at all
  /// (the process died first), are `.interrupted`.
  public static func results(fromJSONLines text: String) -> [CheckResult] {
    var names: [String: String] = [:]
    var order: [String] = []
    var started: Set<String> = []
    var ended: Set<String> = []
    var skipped: Set<String> = []
    var issues: [String: [String]] = [:]

    for line in text.split(whereSeparator: \.isNewline) {
      guard
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let kind = object["kind"] as? String,
        let payload = object["payload"] as? [String: Any]
      else { continue }

      if kind == "test" {
        guard (payload["kind"] as? String) == "function", let id = payload["id"] as? String else {
          continue
        }
        if names[id] == nil { order.append(id) }
        names[id] = (payload["displayName"] as? String) ?? (payload["name"] as? String) ?? id
        continue
      }

      guard kind == "event", let eventKind = payload["kind"] as? String,
        let testID = payload["testID"] as? String
      else { continue }
      // Parameterized runs and exit-test children report test cases; grade per test.
      let id = testID
      switch eventKind {
      case "testStarted":
        started.insert(id)
      case "testEnded":
        ended.insert(id)
      case "testSkipped":
        skipped.insert(id)
      case "issueRecorded":
        let issue = payload["issue"] as? [String: Any]
        if (issue?["isKnown"] as? Bool) == true { continue }
        let messages = (payload["messages"] as? [[String: Any]]) ?? []
        let location = (issue?["sourceLocation"] as? [String: Any]).flatMap(describeLocation)
        // A parameterized check can record the same issue once per argument.
        let text = describeIssue(messages, location: location)
        if !(issues[id]?.contains(text) ?? false) { issues[id, default: []].append(text) }
      default:
        continue
      }
    }

    return order.compactMap { id in
      let name = names[id] ?? id
      if skipped.contains(id) { return CheckResult(id: id, name: name, status: .skipped) }
      let found = issues[id] ?? []
      let status: CheckResult.Status =
        !ended.contains(id) ? .interrupted : found.isEmpty ? .passed : .failed
      return CheckResult(id: id, name: name, status: status, issues: found)
    }
  }

  private static func describeLocation(_ location: [String: Any]) -> String? {
    guard let file = (location["fileID"] as? String) ?? (location["_filePath"] as? String),
      let line = location["line"] as? Int
    else { return nil }
    return "\(file.split(separator: "/").last.map(String.init) ?? file):\(line)"
  }

  /// "The process crashed (SIGILL)." for an exit test's
  /// `Expectation failed: .success → .signal(SIGILL → 4)`, nil for anything else.
  static func exitTestCrash(_ text: String) -> String? {
    let prefix = "Expectation failed: .success → "
    guard text.hasPrefix(prefix) else { return nil }
    let status = text.dropFirst(prefix.count)
    if status.hasPrefix(".signal("), let end = status.firstIndex(of: " ") {
      return
        "Expected the code to keep running; the process crashed (\(status[status.index(status.startIndex, offsetBy: 8)..<end]))."
    }
    if status.hasPrefix(".exitCode(") {
      return "Expected the code to keep running; the process exited early \(status.dropFirst())."
    }
    return nil
  }

  /// Joins an issue's messages, dropping Swift Testing's generic first line
  /// when the check wrote its own explanation.
  static func describeIssue(_ messages: [[String: Any]], location: String?) -> String {
    var texts: [String] = []
    var hasDetails = false
    for message in messages {
      guard let text = message["text"] as? String, !text.isEmpty else { continue }
      if (message["symbol"] as? String) == "details" { hasDetails = true }
      texts.append(text)
    }
    if hasDetails, let first = texts.first,
      first == "Issue recorded" || first.hasPrefix("Expectation failed: checkPassed")
    {
      texts.removeFirst()
    } else if let first = texts.first, let crash = exitTestCrash(first) {
      // An exit test's child died: say so in words, then the check's explanation.
      texts[0] = crash
    }
    var text = texts.joined(separator: "\n")
    if text.isEmpty { text = "Issue recorded" }
    if let location { text += "\n(at \(location))" }
    return text
  }
}
