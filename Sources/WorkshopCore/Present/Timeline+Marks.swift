/// What the timeline changes after reading every event: whom the learner's
/// functions answer, which events should not have happened, and crowds of
/// callers folded into one lane.
extension Timeline {
  /// More than ``crowd`` numbered lanes of one kind (ten callers) share one
  /// lane, `callers 1–10`, and each label says which one it was.
  static let crowd = 4

  static func foldCrowds(_ steps: inout [Step]) {
    var numbered: [String: [Int]] = [:]
    for lane in Set(steps.flatMap { [$0.from, $0.to].compactMap { $0 } }) where lane.role == .caller {
      guard let (noun, number) = nounAndNumber(lane.name) else { continue }
      numbered[noun, default: []].append(number)
    }
    for (noun, numbers) in numbered where numbers.count > crowd {
      let shared = Lane("\(noun)s \(numbers.min()!)–\(numbers.max()!)", .caller)
      func member(_ lane: Lane?) -> Int? {
        guard let lane, let (laneNoun, number) = nounAndNumber(lane.name), laneNoun == noun else {
          return nil
        }
        return number
      }
      for index in steps.indices {
        if let number = member(steps[index].from) {
          steps[index].from = shared
          steps[index].label = "\(number): " + steps[index].label
        } else if let number = member(steps[index].to) {
          steps[index].to = shared
          steps[index].label = "\(number): " + steps[index].label
        }
      }
    }
  }

  /// `caller 10` → (`caller`, 10).
  static func nounAndNumber(_ name: String) -> (String, Int)? {
    let parts = name.split(separator: " ")
    guard parts.count == 2, let number = Int(parts[1]) else { return nil }
    return (String(parts[0]), number)
  }

  /// The learner's function answers whoever called it last (`screen calls
  /// refresh()` … `refresh() returned`), not a caller of its own.
  static func answerWhoCalled(_ steps: inout [Step]) {
    let generic = Lane("caller", .caller)
    var lastCaller: Lane?
    for index in steps.indices {
      let step = steps[index]
      if step.to == .code, step.from.role == .caller, step.kind == .call { lastCaller = step.from }
      if step.from == .code, step.to == generic, step.kind == .answer, let lastCaller {
        steps[index].to = lastCaller
      }
    }
  }

  /// Values too common to point at one event: `nil`, `none`, `[]`, `0`.
  static let vagueValues: Set<String> = ["nil", "none", "[]", "[:]", "()", "true", "false", "0", "\"\""]

  /// Marks what the check did not expect. A count that came out too high
  /// (`Expected: 1`, `Actual: 3`) marks the calls to the service called
  /// that many times, after the expected ones. Otherwise the last arrow
  /// whose label shows the "Actual:" value: a publication or an answer to a
  /// caller first, any other arrow else. `"got Token(fresh-1)"` is also
  /// looked for without its first word, and a vague value (`nil`) not at all.
  static func markUnexpected(expected: String?, actual: String?, in steps: inout [Step]) {
    let trimmed = { (text: String?) in text?.trimmingCharacters(in: .whitespaces) }
    if let wanted = trimmed(expected).flatMap({ Int($0) }), let got = trimmed(actual).flatMap({ Int($0) }),
      got > wanted
    {
      let calls = Dictionary(
        grouping: steps.indices.filter { steps[$0].kind == .call && steps[$0].to?.role == .service },
        by: { steps[$0].to! })
      for (_, indices) in calls where indices.count == got {
        for index in indices.dropFirst(wanted) { steps[index].isWrong = true }
      }
      return
    }
    guard var value = trimmed(actual), !vagueValues.contains(value) else { return }
    if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
      value = String(value.dropFirst().dropLast())
    }
    let candidates =
      [value] + (value.firstIndex(of: " ").map { [String(value[value.index(after: $0)...])] } ?? [])
    for candidate in candidates where candidate.count >= 3 && !vagueValues.contains(candidate) {
      let arrows = steps.indices.filter { steps[$0].to != nil && steps[$0].label.contains(candidate) }
      let shown = arrows.last { [.publish, .answer].contains(steps[$0].kind) && steps[$0].to != .code }
      if let index = shown ?? arrows.last {
        steps[index].isWrong = true
        return
      }
    }
  }
}
