import CheckTranscript

/// A check's recorded events laid out as a sequence diagram: one lane per
/// participant, one row per event, in the transcript's order and numbering.
///
/// The picture is read from the same numbered lines the learner sees under a
/// failing check, so the two can never disagree. The checks' events follow a
/// small grammar (the test kit writes `search("sw") called`, `clock:
/// advanced to t=300ms`; the checks write `user typed "sw"`, `screen shows
/// [Sweater]`, `caller 2 asks ...`), defined in `Timeline+Grammar.swift`
/// only. An event it does not know is still drawn, as a
/// note in the "checks" lane, and `verify` fails while a failing check of a
/// starter or of a wrong fix records one.
package struct Timeline: Sendable, Equatable {
  /// A participant, drawn as a vertical lane.
  struct Lane: Sendable, Equatable, Hashable {
    enum Role: Int, Sendable, Comparable {
      /// Who drives the code: the user, the screen, callers, threads.
      case caller
      /// The learner's code: the model, actor or function under test.
      case code
      /// What the code calls: fake services, SDKs, stores.
      case service
      /// The test clock.
      case clock

      static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    var name: String
    var role: Role

    init(_ name: String, _ role: Role) {
      self.name = name
      self.role = role
    }

    /// The learner's code.
    static let code = Lane("your code", .code)
    /// The clock the check moves.
    static let clock = Lane("clock", .clock)
    /// The check itself, for events no other lane owns.
    static let checks = Lane("checks", .caller)
  }

  /// One event, placed.
  struct Step: Sendable, Equatable {
    package enum Kind: String, Sendable {
      /// A call or request, from one lane to another.
      case call
      /// An answer, a callback or a delivered value, back to the caller.
      case answer
      /// The code shows a value to its observer (`screen shows`, `state =`).
      case publish
      /// A cancellation, or a cancelled sleep or call.
      case cancel
      /// The test clock moved.
      case tick
      /// Something that happened within one lane.
      case note
    }

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
    /// Whether the grammar knew the event.
    var isKnown: Bool = true
  }

  /// The lanes, left to right: callers, the code, services, the clock.
  var lanes: [Lane]
  var steps: [Step]

  /// Lays out `events` (a transcript, oldest first). `expected` and
  /// `actual` are the check's "Expected:" and "Actual:" values: the events
  /// that show what was not expected are marked as those that should not
  /// have happened.
  package init(events: [String], expected: String? = nil, actual: String? = nil) {
    // A function that something `called` is a service; one that only
    // returns or finishes is the learner's code answering its caller.
    let services = Set(
      events.compactMap { event -> String? in
        guard let call = Self.call(in: event),
          call.rest.hasPrefix(" called") || call.rest.isEmpty || call.rest.hasPrefix(": key seen before")
        else {
          return nil
        }
        return call.name
      })
    var steps = events.enumerated().map { index, event in
      Self.step(event, number: index + 1, services: services)
    }
    Self.answerWhoCalled(&steps)
    Self.markUnexpected(expected: expected, actual: actual, in: &steps)
    Self.foldCrowds(&steps)
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

  /// The events the grammar did not know.
  package var unknownEvents: [String] { steps.filter { !$0.isKnown }.map(\.text) }

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
    var seen: [[String]] = []
    return check.issues.compactMap { issue in
      let body = EventStream.splitLocation(issue).body
      guard let verdict = Verdict(parsing: body), !verdict.events.isEmpty, !seen.contains(verdict.events)
      else {
        return nil
      }
      seen.append(verdict.events)
      return verdict
    }
  }
}
