import CheckTranscript
import Testing

/// A clock whose time moves only when the test says so.
///
/// Code under test takes `any Clock<Duration>`; production passes
/// `ContinuousClock()`, tests pass a `TestClock` and drive it:
///
///     model.searchTextDidChange("swift")
///     try await clock.waitForSleepers(1)   // the debounce sleep is registered
///     clock.advance(by: .milliseconds(300)) // ...and now it fires
///
/// Always wait for the sleeper before advancing. A sleep reads `now` when it is
/// called, so advancing first would move time before the code has started its
/// sleep and the sleep would never fire (the registration race).
///
/// A sleeping task that is cancelled wakes at once with `CancellationError`,
/// also when the cancellation arrives before the sleep was registered.
public final class TestClock: Clock, Sendable {
  /// A point on the test clock's timeline, measured from its start.
  public struct Instant: InstantProtocol, CustomStringConvertible {
    /// Time since the clock was created.
    public var offset: Duration

    /// Creates an instant `offset` after the clock's start.
    public init(offset: Duration = .zero) { self.offset = offset }

    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }

    public var description: String { "t=\(offset.formatted)" }
  }

  private struct Sleeper: Sendable {
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State: Sendable {
    var now = Instant()
    var sleepers: [Int: Sleeper] = [:]
    /// Sleeps cancelled before they were registered.
    var cancelledEarly: Set<Int> = []
    var nextID = 0
  }

  private let state = WaitableState(State())
  private let events: EventLog?

  /// Creates a clock at `t=0`; with `events`, sleeps and advances are logged.
  public init(events: EventLog? = nil) {
    self.events = events
  }

  public var now: Instant {
    state.current.now
  }

  public var minimumResolution: Duration { .zero }

  /// The number of tasks currently suspended in `sleep`.
  public var sleeperCount: Int {
    state.current.sleepers.count
  }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.update { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        enum Outcome { case cancelled, due, registered }
        // Logged before the sleeper becomes visible, so the log shows the
        // sleep before anything a check does once it sees the sleeper.
        let snapshot = state.current
        let willSleep = !snapshot.cancelledEarly.contains(id) && deadline > snapshot.now
        if willSleep {
          events?.record(
            .call(
              "clock: sleep until \(deadline) (now \(snapshot.now))", to: .clock,
              label: "sleep until \(deadline)"))
        }
        let outcome = state.update { state -> Outcome in
          if state.cancelledEarly.remove(id) != nil { return .cancelled }
          if deadline <= state.now { return .due }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return .registered
        }
        switch outcome {
        case .cancelled:
          events?.record(
            .cancel(
              "clock: sleep cancelled before it started", from: .code, to: .clock,
              label: "sleep cancelled before it started"))
          continuation.resume(throwing: CancellationError())
        case .due:
          continuation.resume()
        case .registered:
          break
        }
      }
    } onCancel: {
      let sleeper = state.update { state -> Sleeper? in
        if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
        state.cancelledEarly.insert(id)
        return nil
      }
      if let sleeper {
        events?.record(
          .cancel(
            "clock: sleep until \(sleeper.deadline) cancelled", from: .code, to: .clock,
            label: "sleep until \(sleeper.deadline) cancelled"))
        sleeper.continuation.resume(throwing: CancellationError())
      }
    }
  }

  /// Moves time forward and wakes every sleeper whose deadline has come.
  public func advance(by duration: Duration) {
    advance(to: now.advanced(by: duration))
  }

  /// Moves time to `instant` (never backwards) and wakes the sleepers that are due.
  public func advance(to instant: Instant) {
    let (now, due) = state.update { state in
      if instant > state.now { state.now = instant }
      let due = state.sleepers.filter { $0.value.deadline <= state.now }
        .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
      for (id, _) in due { state.sleepers[id] = nil }
      return (state.now, due.map(\.value))
    }
    events?.record(.tick("clock: advanced to \(now)" + (due.isEmpty ? ", nothing due" : ""), label: "\(now)"))
    for sleeper in due { sleeper.continuation.resume() }
  }

  /// Suspends until at least `count` tasks are suspended in `sleep`.
  ///
  /// It counts the sleepers present right now, not the sleeps started so far: a
  /// sleeper that is cancelled leaves the count. Cancel old sleepers (or let
  /// their tasks finish) before waiting for a new one.
  ///
  /// Fails the check if that does not happen within the hang bound.
  public func waitForSleepers(
    _ count: Int = 1,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    do {
      try await state.wait(until: { $0.sleepers.count >= count })
    } catch is WaitTimedOut {
      let log = events ?? EventLog()
      try log.stop(
        "Expected \(count) sleeping task(s) on the clock within \(hangBound.formatted).",
        actual: "\(sleeperCount) sleeping", sourceLocation: sourceLocation)
    }
  }
}

extension Duration {
  /// A short human form: `300ms`, `2s`, `1.5s`.
  var formatted: String {
    let (seconds, attoseconds) = components
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
    if milliseconds < 1000 { return "\(milliseconds)ms" }
    return "\(Double(milliseconds) / 1000)s"
  }
}
