import CheckTranscript
import Synchronization
import Testing

/// One thing that happened while a check ran, with who did it to whom: see
/// ``EventLog/record(_:)-(RecordedEvent)``.
public typealias RecordedEvent = CheckTranscript.RecordedEvent

/// Why a check failed, as values, with the events recorded until then.
public typealias Verdict = CheckTranscript.Verdict

/// An ordered record of what happened during one check, shown with every failure.
///
/// Fakes, gates and the test clock write to it as the scenario runs, each
/// event with its structure (who, to whom, what kind, whether it should have
/// happened), so a failing check shows the interleaving that broke the code
/// as a numbered list and as a timeline:
///
///     let events = EventLog()
///     events.record(.call("user typed \"sw\"", from: .caller("user"), label: "typed \"sw\""))
///     let search = CallGate<String, [String]>("search", events: events)
///     // ... the gate records `search("sw") called`, and its answer ...
///     events.expect(model.products, equals: ["Swift Book"], "The late answer for \"sw\" is dropped")
///
/// fails with:
///
///     The late answer for "sw" is dropped
///     Expected: ["Swift Book"]
///     Actual:   ["Sweater"]
///     Recorded events:
///       1. user typed "sw"
///       2. search("sw") called
///       3. search("swift") called
///       4. search("swift") returned ["Swift Book"]
///       5. search("sw") returned ["Sweater"] (late: its caller was cancelled)
///
/// The checks (`expect`, `require`, `withinTimeLimit`) are methods on the log so
/// that every failure carries it without the test having to remember. Each
/// failure is recorded twice: in prose, as the issue's comment that Xcode and
/// `swift test` show, and as values, a ``Verdict`` attached to the check in
/// JSON (`verdict.json`) that the workshop's runner decodes.
public final class EventLog: Sendable {
  private let state = WaitableState<[RecordedEvent]>([])
  /// Set while ``Orders`` plays one order: failures end the order instead of
  /// failing the check, and are kept here.
  private let collected: Mutex<[Verdict]>?

  /// Creates an empty log.
  public init() {
    collected = nil
  }

  init(collectingFailures: Bool) {
    collected = collectingFailures ? Mutex([]) : nil
  }

  /// Keeps a failure, in a log that collects them.
  func collect(failure verdict: Verdict) {
    collected?.withLock { $0.append(verdict) }
  }

  /// The failures kept so far, oldest first.
  var collectedFailures: [Verdict] { collected?.withLock { $0 } ?? [] }

  /// Fails the check with `verdict`, or keeps it in a log that collects failures.
  private func fail(_ verdict: Verdict, sourceLocation: SourceLocation) {
    if collected != nil {
      collect(failure: verdict)
    } else {
      Self.record(verdict, sourceLocation: sourceLocation)
    }
  }

  /// Records `verdict` as an issue of the current check: its values as an
  /// attachment, then its prose as the issue's comment.
  static func record(_ verdict: Verdict, sourceLocation: SourceLocation) {
    CrashLog.waitIfTheProcessIsStopping()
    attach(verdict, sourceLocation: sourceLocation)
    Issue.record(Comment(rawValue: verdict.text), sourceLocation: sourceLocation)
  }

  /// Attaches `verdict`'s values to the current check, for the runner; an
  /// issue with its prose must follow at once.
  static func attach(_ verdict: Verdict, sourceLocation: SourceLocation) {
    Attachment.record(verdict.attachmentBytes, named: Verdict.attachmentName, sourceLocation: sourceLocation)
    CrashLog.keep(verdict)
  }

  /// Appends one event, with its structure:
  ///
  ///     events.record(.publish("screen shows [Sweater]", to: .caller("screen"), label: "[Sweater]"))
  public func record(_ event: RecordedEvent) {
    state.update { $0.append(event) }
  }

  /// Appends one event that belongs to no participant in particular: a
  /// timeline draws it as a note in the check's own lane.
  ///
  ///     events.record("order 2 of 6: the refresh finishes first")
  public func record(_ sentence: String) {
    record(.note(sentence))
  }

  /// The events so far, oldest first.
  public var events: [RecordedEvent] {
    state.current
  }

  /// The events so far as their sentences, oldest first.
  public var sentences: [String] {
    state.current.map(\.text)
  }

  /// Suspends until an event matching `predicate` has been recorded.
  ///
  /// Fails the check (and throws) if none arrives within the hang bound.
  public func waitForEvent(
    _ description: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    where predicate: @escaping @Sendable (String) -> Bool
  ) async throws {
    do {
      try await state.wait(until: { $0.contains(where: { predicate($0.text) }) })
    } catch is WaitTimedOut {
      try stop(
        "Waited \(hangBound.formatted) for \(description), but it never happened.",
        sourceLocation: sourceLocation)
    }
  }

  /// The numbered log, one event per line, ready to be shown to a learner.
  public var transcript: String {
    Verdict(behaviour: "", events: events).transcript
  }

  // MARK: - Checks

  /// Records a failure unless `actual == expected`; the check goes on either way.
  public func expect<Value: Equatable>(
    _ actual: Value,
    equals expected: Value,
    _ behaviour: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard actual != expected else { return }
    fail(verdict(behaviour, expected: show(expected), actual: show(actual)), sourceLocation: sourceLocation)
  }

  /// Records a failure unless `condition` holds; the check goes on either way.
  ///
  /// - Parameter actual: what happened instead, in plain words.
  public func expect(
    _ condition: Bool,
    _ behaviour: String,
    actual: @autoclosure () -> String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    guard !condition else { return }
    fail(verdict(behaviour, expected: nil, actual: actual()), sourceLocation: sourceLocation)
  }

  /// Like ``expect(_:equals:_:sourceLocation:)``, but stops the check on failure.
  public func require<Value: Equatable>(
    _ actual: Value,
    equals expected: Value,
    _ behaviour: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    guard actual != expected else { return }
    try stop(
      behaviour, expected: show(expected), actual: show(actual), sourceLocation: sourceLocation)
  }

  /// Like ``expect(_:_:actual:sourceLocation:)``, but stops the check on failure.
  public func require(
    _ condition: Bool,
    _ behaviour: String,
    actual: @autoclosure () -> String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    guard !condition else { return }
    try stop(behaviour, actual: actual(), sourceLocation: sourceLocation)
  }

  /// Records a failure with the transcript and stops the check.
  public func stop(
    _ behaviour: String,
    expected: String? = nil,
    actual: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Never {
    try stop(verdict(behaviour, expected: expected, actual: actual), sourceLocation: sourceLocation)
  }

  /// Records `verdict` and stops the check.
  func stop(_ verdict: Verdict, sourceLocation: SourceLocation) throws -> Never {
    if collected != nil {
      collect(failure: verdict)
      throw CollectedFailure()
    }
    try Self.stop(recording: verdict, sourceLocation: sourceLocation)
  }

  /// Records `verdict` as the one issue of a `#require` that fails, and
  /// throws the error Swift Testing knows not to report a second time.
  static func stop(recording verdict: Verdict, sourceLocation: SourceLocation) throws -> Never {
    attach(verdict, sourceLocation: sourceLocation)
    // `#require` records exactly one issue and throws the error Swift Testing
    // knows not to report a second time. `swift test` prints the condition's
    // source as the issue's headline: it says what happened, in plain words.
    let `the behaviour below did not happen` = false
    try #require(
      `the behaviour below did not happen`, Comment(rawValue: verdict.text), sourceLocation: sourceLocation)
    fatalError("unreachable: #require(false) always throws")
  }

  /// Runs `operation` and returns its result, or fails the check if it does not
  /// finish within the hang bound.
  ///
  /// This is the kit's hang guard: the operation runs in its own task, raced
  /// against a real-time timer, so an `await` that never completes (a
  /// continuation nobody resumes, a gate nobody opens) fails this one check in
  /// about two seconds instead of hanging the run.
  public func withinTimeLimit<Value: Sendable>(
    _ description: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    let outcome = WaitableState<Result<Value, any Error>?>(nil)
    let work = Task {
      let result: Result<Value, any Error>
      do { result = .success(try await operation()) } catch { result = .failure(error) }
      outcome.update { $0 = result }
    }
    do {
      try await outcome.wait(until: { $0 != nil })
    } catch is WaitTimedOut {
      work.cancel()
      record(
        .note(
          "hang guard: \(description) still not finished after \(hangBound.formatted)", in: .code,
          label: "never finished"
        ).wrong())
      var verdict = verdict(
        "\(description) never finished.",
        expected: "it finishes within \(hangBound.formatted)",
        actual: "still running after \(hangBound.formatted). Likely cause: a continuation that is"
          + " never resumed, or a wait for something that never happens")
      verdict.unfinished = description
      try stop(verdict, sourceLocation: sourceLocation)
    }
    return try outcome.current!.get()
  }

  // MARK: - Formatting

  func verdict(_ behaviour: String, expected: String?, actual: String?) -> Verdict {
    Verdict(behaviour: behaviour, expected: expected, actual: actual, events: events)
  }
}

/// A readable rendering of a value for failure messages.
///
/// Strings keep their quotes, optionals show as their value or `nil`, types
/// with a `description` use it, and enum cases name their type
/// (`MirrorError.noMirrors`), without the module prefix.
///
///     events.record(.answer("search(\(show(query))) returned \(show(results))", from: .service("search")))
///     // search("sw") returned ["Sweater"]
///     show(Optional<Int>.none)           // nil
///     show(MirrorError.noMirrors)        // MirrorError.noMirrors
///     show(TaskPriority.userInitiated)   // TaskPriority.userInitiated (= .high)
public func show<Value>(_ value: Value) -> String {
  let mirror = Mirror(reflecting: value)
  if mirror.displayStyle == .optional {
    guard let wrapped = mirror.children.first?.value else { return "nil" }
    return show(wrapped)
  }
  switch value {
  case let priority as TaskPriority:
    return showPriority(priority)
  case let priorities as [TaskPriority]:
    return "[" + priorities.map(showPriority).joined(separator: ", ") + "]"
  case is String, is Substring, is Character:
    return String(reflecting: value)
  case is any CustomStringConvertible:
    return String(describing: value)
  default:
    // `as Any` names the dynamic type even for an error that was boxed twice
    // on its way (thrown through a continuation, say), where `type(of:)` on
    // the generic value would say only `Error`.
    if mirror.displayStyle == .enum { return "\(type(of: value as Any)).\(value)" }
    return String(describing: value)
  }
}

/// A priority in both names an app may give it: `.userInitiated` and
/// `.high` are one priority (25), as are `.low` and `.utility` (17), and the
/// standard library's own description says only `.high` and `.low`.
private func showPriority(_ priority: TaskPriority) -> String {
  switch priority {
  case .userInitiated: "TaskPriority.userInitiated (= .high)"
  case .low: "TaskPriority.low (= .utility)"
  case .medium: "TaskPriority.medium"
  case .background: "TaskPriority.background"
  default: "TaskPriority(rawValue: \(priority.rawValue))"
  }
}
