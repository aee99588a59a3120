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
