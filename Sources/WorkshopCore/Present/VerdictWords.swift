import CheckTranscript

/// A verdict's labels in the learner's language. The verdict's values, the
/// behaviour it names and the recorded events are the check's data, shown as
/// recorded; only the words around them are translated.
///
/// ```swift
/// VerdictWords.chinese.headline(verdict)
/// // The late answer for "sw" is dropped      (the check's words, as written)
/// // 预期：[Swift Book]
/// // 实际：[Sweater]
/// ```
package struct VerdictWords: Sendable {
  var runtimeSaid: String
  var expected: String
  var actual: String
  var events: String
  var noEvents: String

  /// Simplified Chinese. "预期：" and "实际：" take the same columns, as
  /// "Expected: " and "Actual:   " do, so the two values line up.
  package static let chinese = VerdictWords(
    runtimeSaid: "Swift 运行时输出：", expected: "预期：", actual: "实际：", events: "记录的事件：", noEvents: "（无）")

  /// ``Verdict/headline`` in these words.
  package func headline(_ verdict: Verdict) -> String {
    var lines: [String] = []
    if !verdict.runtimeSaid.isEmpty {
      lines.append(runtimeSaid)
      lines += verdict.runtimeSaid.map { "  " + $0 }
    }
    if !verdict.behaviour.isEmpty { lines.append(verdict.behaviour) }
    if let expected = verdict.expected { lines.append(self.expected + expected) }
    if let actual = verdict.actual { lines.append(self.actual + actual) }
    return lines.joined(separator: "\n")
  }

  /// ``Verdict/transcript`` in these words.
  package func transcript(_ verdict: Verdict) -> String {
    guard !verdict.events.isEmpty else { return events + noEvents }
    let lines = verdict.events.enumerated().map { index, event in "  \(index + 1). \(event.text)" }
    return ([events] + lines).joined(separator: "\n")
  }
}

extension CheckIssue {
  /// The issue's words in `language`: in Chinese, the grader's own words in
  /// Chinese when it kept them (``chinese``), else the prose with a verdict's
  /// labels translated. Its values, the behaviour and the recorded events are
  /// the check's data and stay as recorded.
  package func words(_ language: Language) -> String {
    guard language == .chinese else { return description }
    if let chinese { return chinese }
    guard let verdict else { return description }
    return description.replacingOccurrences(
      of: verdict.headline, with: VerdictWords.chinese.headline(verdict)
    )
    .replacingOccurrences(of: verdict.transcript, with: VerdictWords.chinese.transcript(verdict))
  }
}
