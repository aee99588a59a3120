import CheckTranscript
import Synchronization
import Testing

/// An ordered record of what happened during one check, shown with every failure.
///
/// Fakes, gates and the test clock write to it as the scenario runs, so a failing
/// check shows the interleaving that broke the code, for example:
///
///     1. search("sw") started
///     2. search("swift") started
///     3. search("swift") returned ["Swift Book"]
///     4. search("sw") returned ["Sweater"]   (late)
///     5. products = ["Sweater"]
///
/// The checks (`expect`, `require`, `withinTimeLimit`) are methods on the log so
/// that every failure carries it without the test having to remember.
public final class EventLog: Sendable {
  private let state = WaitableState<[String]>([])
  /// Set while ``Orders`` plays one order: failures end the order instead of
  /// failing the check, and are kept here.
  private let collected: Mutex<[String]>?

  /// Creates an empty log.
  public init() {
    collected = nil
  }

  init(collectingFailures: Bool) {
    collected = collectingFailures ? Mutex([]) : nil
  }

  /// Keeps a failure's text, in a log that collects them.
  func collect(failure text: String) {
    collected?.withLock { $0.append(text) }
  }

  /// The failures kept so far, oldest first.
  var collectedFailures: [String] { collected?.withLock { $0 } ?? [] }

  /// Fails the check with `text`, or keeps it in a log that collects failures.
  private func fail(_ text: String, sourceLocation: SourceLocation) {
    if collected != nil {
      collect(failure: text)
    } else {
      Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }
  }

  /// Appends one event.
  public func record(_ event: String) {
    state.update { $0.append(event) }
  }

  /// The events so far, oldest first.
  public var events: [String] {
    state.current
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
      try await state.wait(until: { $0.contains(where: predicate) })
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
    fail(
      failureText(behaviour, expected: show(expected), actual: show(actual)), sourceLocation: sourceLocation)
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
    fail(failureText(behaviour, expected: nil, actual: actual()), sourceLocation: sourceLocation)
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
    if collected != nil {
      collect(failure: failureText(behaviour, expected: expected, actual: actual))
      throw CollectedFailure()
    }
    // `#require` records exactly one issue and throws the error Swift Testing
    // knows not to report a second time. `swift test` prints the condition's
    // source as the issue's headline: it says what happened, in plain words.
    let `the behaviour below did not happen` = false
    try #require(
      `the behaviour below did not happen`,
      Comment(rawValue: failureText(behaviour, expected: expected, actual: actual)),
      sourceLocation: sourceLocation)
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
      record(EventWords.hangGuard + "\(description) still not finished after \(hangBound.formatted)")
      try stop(
        "\(description) never finished.",
        expected: "it finishes within \(hangBound.formatted)",
        actual: "still running after \(hangBound.formatted). Likely cause: a continuation that is"
          + " never resumed, or a wait for something that never happens",
        sourceLocation: sourceLocation)
    }
    return try outcome.current!.get()
  }

  // MARK: - Formatting

  private func failureText(_ behaviour: String, expected: String?, actual: String?) -> String {
    Verdict(behaviour: behaviour, expected: expected, actual: actual, events: events).text
  }
}

/// A readable rendering of a value for failure messages.
///
/// Strings keep their quotes, optionals show as their value or `nil`, types
/// with a `description` use it, and enum cases name their type
/// (`MirrorError.noMirrors`), without the module prefix.
///
///     events.record("search(\(show(query))) returned \(show(results))")
///     // search("sw") returned ["Sweater"]
///     show(Optional<Int>.none)           // nil
///     show(MirrorError.noMirrors)        // MirrorError.noMirrors
public func show<Value>(_ value: Value) -> String {
  let mirror = Mirror(reflecting: value)
  if mirror.displayStyle == .optional {
    guard let wrapped = mirror.children.first?.value else { return "nil" }
    return show(wrapped)
  }
  switch value {
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
