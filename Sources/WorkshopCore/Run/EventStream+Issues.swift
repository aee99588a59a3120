import CheckTranscript
import Foundation

/// What the event stream says of one issue: the kit's verdict that goes
/// with it, Swift Testing's own words for a skip or an exit test's crash,
/// and the runtime's words joined to the crash they explain.
extension EventStream {
  /// Removes from `pending` and returns the verdict whose prose is one of
  /// the issue's messages (the kit's comment), the oldest such; nil when
  /// none is.
  static func takeVerdict(of messages: [Message], from pending: inout [Verdict]?) -> Verdict? {
    guard let index = pending?.firstIndex(where: { verdict in messages.contains { $0.text == verdict.text } })
    else { return nil }
    return pending?.remove(at: index)
  }

  /// The reason in `Test "name" skipped: "reason"`, as Swift Testing words a
  /// skip; the whole message when it has no reason.
  static func skipReason(_ messages: [Message]) -> String {
    guard let text = messages.first?.text else { return "skipped" }
    // The closing quote must not be the marker's own opening one.
    guard let range = text.range(of: " skipped: \"", options: .backwards), text.hasSuffix("\""),
      range.upperBound < text.endIndex
    else { return text }
    return String(text[range.upperBound..<text.index(before: text.endIndex)])
  }

  /// "The process crashed (SIGILL)." for an exit test's failed
  /// expectation, nil for anything else. Swift Testing words the status
  /// two ways: 6.3 names the signal (`.success → .signal(SIGILL → 4)`),
  /// 6.2 gives its number only (`.success → .signal(4)`; `ExitStatus`'s
  /// description at swift-6.2-RELEASE), which is named here with this
  /// platform's numbers (the test process ran on it): a crash on a Mac is
  /// often `SIGTRAP`, 5, on Linux `SIGILL`, 4.
  static func exitTestCrash(_ text: String) -> String? {
    let prefix = "Expectation failed: .success → "
    guard text.hasPrefix(prefix) else { return nil }
    let status = text.dropFirst(prefix.count)
    if status.hasPrefix(".signal(") {
      let inner = status.dropFirst(".signal(".count)
      guard let end = inner.firstIndex(where: { $0 == " " || $0 == ")" }), end > inner.startIndex else {
        return nil
      }
      let signal = inner[..<end]
      let name = Int32(signal).map { signalName($0) } ?? String(signal)
      return "Expected the code to keep running; the process crashed (\(name))."
    }
    if status.hasPrefix(".exitCode(") {
      return "Expected the code to keep running; the process exited early \(status.dropFirst())."
    }
    return nil
  }

  /// An exit test's crash (`crash`) with what the runtime said as it
  /// happened (`explanation`, the kit's ``CrashLog`` verdict): the crash,
  /// the runtime's words, then the check's own; nil when `explanation` is
  /// not one.
  static func mergeCrash(_ crash: CheckIssue, explanation: CheckIssue) -> CheckIssue? {
    guard crash.isCrash, let said = explanation.verdict?.runtimeSaid, !said.isEmpty else { return nil }
    var lines = crash.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines[0] += " The Swift runtime said:"
    lines.insert(contentsOf: said.map { "  " + $0 }, at: 1)
    var merged = crash
    merged.text = lines.joined(separator: "\n")
    merged.runtimeSaid = said
    return merged
  }

  /// An issue as the run recorded it: the kit's verdict when it sent one,
  /// in the kit's words (after what Swift Testing says of an exit test
  /// whose process crashed); else Swift Testing's own messages, without
  /// their generic first line.
  static func issueRecorded(_ messages: [Message], verdict: Verdict?, location: String?) -> CheckIssue {
    var texts = messages.map(\.text).filter { !$0.isEmpty }
    let crash = texts.first.flatMap(exitTestCrash)
    if let verdict {
      // An exit test's child died: say so in words, before the check's explanation.
      texts = (crash.map { [$0] } ?? []) + [verdict.text]
    } else if let crash {
      texts[0] = crash
    } else if texts.count > 1, texts.first == "Issue recorded" {
      texts.removeFirst()
    }
    let text = texts.joined(separator: "\n")
    var issue = CheckIssue(text.isEmpty ? "Issue recorded" : text, location: location, verdict: verdict)
    issue.isCrash = crash != nil
    return issue
  }
}
