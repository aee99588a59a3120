/// One thing that happened while a check ran, with its structure: who did
/// it, to whom, what kind of thing it was, and whether it should have
/// happened at all.
///
/// The test kit records these; the runner receives them with the check's
/// ``Verdict`` and draws them, so nothing parses the sentence:
///
///     // `search("sw") returned [Sweater]`, an answer that came after its
///     // caller was cancelled: drawn from the search service to your code,
///     // in red.
///     RecordedEvent.answer(
///       "search(\"sw\") returned [Sweater] (late: its caller was cancelled)",
///       from: .service("search"), label: "[Sweater]"
///     ).wrong()
///
/// `text` is the sentence the learner reads in the numbered list under a
/// failing check; `label` is the short form a timeline writes on the arrow.
public struct RecordedEvent: Sendable, Hashable, Codable {
  /// What kind of arrow or mark the event is on a timeline.
  public enum Kind: String, Sendable, Codable {
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

  /// A participant, drawn as a vertical lane.
  public struct Lane: Sendable, Hashable, Codable {
    /// Where a lane stands, left to right.
    public enum Role: Int, Sendable, Codable, Comparable {
      /// Who drives the code: the user, the screen, callers, threads.
      case caller
      /// The learner's code: the model, actor or function under test.
      case code
      /// What the code calls: fake services, SDKs, stores.
      case service
      /// The test clock.
      case clock

      public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The lane's heading: `user`, `caller 2`, `search`.
    public var name: String
    public var role: Role

    public init(_ name: String, _ role: Role) {
      self.name = name
      self.role = role
    }

    /// The learner's code.
    public static let code = Lane("your code", .code)
    /// The clock the check moves.
    public static let clock = Lane("clock", .clock)
    /// The check itself, for what no other lane owns.
    public static let checks = Lane("checks", .caller)
    /// Whoever called the learner's function last: a timeline draws the
    /// answer back to the lane that made the call.
    public static let whoeverCalled = Lane("caller", .caller)

    /// Someone who drives the code: `.caller("user")`, `.caller("caller 2")`.
    public static func caller(_ name: String) -> Lane { Lane(name, .caller) }
    /// Something the code calls: `.service("search")`.
    public static func service(_ name: String) -> Lane { Lane(name, .service) }
  }

  /// The event in a sentence, as the numbered list shows it.
  public var text: String
  public var kind: Kind
  public var from: Lane
  /// Where an arrow ends; nil for a note or a tick.
  public var to: Lane?
  /// What the arrow or mark says, short.
  public var label: String
  /// Something that should not have happened whatever the check expects: a
  /// late answer, a call by a cancelled task, an operation that never finished.
  public var isWrong: Bool

  public init(
    _ text: String, kind: Kind, from: Lane, to: Lane? = nil, label: String? = nil, isWrong: Bool = false
  ) {
    self.text = text
    self.kind = kind
    self.from = from
    self.to = to
    self.label = label ?? text
    self.isWrong = isWrong
  }

  /// A call from `from` to `to`: the learner's code calling a service
  /// (`.call("search(\"sw\") called", to: .service("search"))`), or someone
  /// driving the learner's code (`.call("user typed \"sw\"", from: .caller("user"))`).
  public static func call(_ text: String, from: Lane = .code, to: Lane = .code, label: String? = nil) -> Self
  {
    Self(text, kind: .call, from: from, to: to, label: label)
  }

  /// An answer from `from` to `to`; by default, the learner's code answering
  /// whoever called it.
  public static func answer(
    _ text: String, from: Lane = .code, to: Lane? = nil, label: String? = nil
  ) -> Self {
    Self(text, kind: .answer, from: from, to: to ?? (from == .code ? .whoeverCalled : .code), label: label)
  }

  /// The learner's code shows a value to `to`: `screen shows [Sweater]`.
  public static func publish(_ text: String, to: Lane, label: String? = nil) -> Self {
    Self(text, kind: .publish, from: .code, to: to, label: label)
  }

  /// A cancellation from `from` to `to`.
  public static func cancel(_ text: String, from: Lane, to: Lane = .code, label: String? = nil) -> Self {
    Self(text, kind: .cancel, from: from, to: to, label: label)
  }

  /// The test clock moved to `label` (`t=300ms`).
  public static func tick(_ text: String, label: String) -> Self {
    Self(text, kind: .tick, from: .clock, label: label)
  }

  /// Something within one lane; the check's own lane unless said.
  public static func note(_ text: String, in lane: Lane = .checks, label: String? = nil) -> Self {
    Self(text, kind: .note, from: lane, label: label)
  }

  /// The same event, marked as one that should not have happened (when
  /// `isWrong` is true).
  public func wrong(_ isWrong: Bool = true) -> Self {
    var event = self
    event.isWrong = event.isWrong || isWrong
    return event
  }
}
