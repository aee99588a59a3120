import CheckTranscript

/// A check's recorded events laid out as a sequence diagram: one lane per
/// participant, one row per event, in the transcript's order and numbering.
///
/// The picture is drawn from the events as the kit recorded them, with their
/// structure (who, to whom, what kind, whether it should have happened), the
/// same values the numbered list under a failing check is written from, so
/// the two can never disagree, and a chapter's checks need nothing here to
/// be drawn. What the timeline adds after reading them all is in
/// `Timeline+Marks.swift`: whom the learner's functions answer, what the
/// check did not expect, crowds of callers folded into one lane.
package struct Timeline: Sendable, Equatable {
  /// A participant, drawn as a vertical lane.
  typealias Lane = RecordedEvent.Lane

  /// One event, placed.
  struct Step: Sendable, Equatable {
    typealias Kind = RecordedEvent.Kind

    /// The event's number in the transcript, from 1.
    var number: Int
    /// The event as recorded.
    var text: String
    var kind: Kind
    var from: Lane
    /// Where an arrow ends; nil for a note or a tick.
    var to: Lane?
    /// What the arrow or mark says, short.
    var label: String
    /// Something that should not have happened: a late answer used, a call
    /// by a cancelled task, a hang, the value the check did not expect.
    var isWrong: Bool
  }

  /// The lanes, left to right: callers, the code, services, the clock.
  var lanes: [Lane]
  var steps: [Step]

  /// Lays out `events` (oldest first). `expected` and `actual` are the
  /// check's "Expected:" and "Actual:" values: the events that show what
  /// was not expected are marked as those that should not have happened.
  package init(events: [RecordedEvent], expected: String? = nil, actual: String? = nil) {
    var steps = events.enumerated().map { index, event in
      Step(
        number: index + 1, text: event.text, kind: event.kind, from: event.from,
        to: event.kind == .tick || event.kind == .note ? nil : event.to, label: event.label,
        isWrong: event.isWrong)
    }
    Self.answerWhoCalled(&steps)
    Self.markUnexpected(expected: expected, actual: actual, in: &steps)
    Self.foldCrowds(&steps)
    self.init(steps: steps)
  }

  /// The steps, with the lanes they use in order.
  init(steps: [Step]) {
    self.steps = steps
    var seen: [Lane] = []
    for step in steps {
      for lane in [step.from, step.to].compactMap({ $0 }) where !seen.contains(lane) { seen.append(lane) }
    }
    if !seen.contains(.code) { seen.append(.code) }
    // Stable: within a role, lanes keep the order they first appear in.
    lanes = seen.enumerated().sorted { ($0.element.role, $0.offset) < ($1.element.role, $1.offset) }.map(
      \.element)
  }

  /// The rows a slide can show large enough to read from the back of a
  /// room: the first that should not have happened, the two rows that lead
  /// up to it and the wrong ones right after it, at most `limit` in all (the
  /// last `limit` when none is wrong), with only the lanes they use. Rows
  /// keep their numbers, so the excerpt matches the terminal's list.
  func excerpt(rows limit: Int = 6) -> Timeline {
    let wrong = steps.indices.filter { steps[$0].isWrong }
    let end: Int
    if let first = wrong.first {
      // Two rows of what led to it, when there are any, then the wrong ones.
      let context = min(2, first, limit - 1)
      let lastWrongInReach = wrong.last { $0 < first - context + limit } ?? first
      end = lastWrongInReach + 1
    } else {
      end = steps.count
    }
    let window = Array(steps[max(0, end - limit)..<end])
    let used = Set(window.flatMap { [$0.from, $0.to].compactMap { $0 } })
    var excerpt = self
    excerpt.steps = window
    // A tick's dotted line starts at the first lane: keep the lanes in order.
    excerpt.lanes = lanes.filter { used.contains($0) || $0 == .code }
    return excerpt
  }
}

extension Timeline {
  /// The timelines of a failing check: one per distinct recorded log, with
  /// the verdict that goes with it.
  package static func verdicts(of check: CheckResult) -> [Verdict] {
    var seen: [[RecordedEvent]] = []
    return check.issues.compactMap { issue in
      guard let verdict = issue.verdict, !verdict.events.isEmpty, !seen.contains(verdict.events) else {
        return nil
      }
      seen.append(verdict.events)
      return verdict
    }
  }
}
