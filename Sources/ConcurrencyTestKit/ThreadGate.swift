import CheckTranscript
import Foundation
import Testing

/// Holds synchronous work, a step that never suspends, at a point the test
/// chooses, on whatever thread runs it, until the test lets it go.
///
/// A ``CallGate`` suspends an async call, which frees its thread. A thread
/// gate blocks the thread itself, as a long computation does, so that while a
/// point is held the thread, and the actor the work runs on, is as busy as it
/// would be in the middle of decoding an image. That is what a check needs to
/// ask where the work runs (see ``MainActorProbe``):
///
///     let events = EventLog()
///     let gate = ThreadGate("decoder.decodeRow", events: events, holding: [0])
///     // in the fake:   func decodeRow(_ row: Int) -> [UInt8] { gate.pass(row); return pixels(row) }
///     // in the check:
///     let screen = Task { @MainActor in await model.open(photo) }
///     try await gate.waitForArrival(0)             // row 0 is being decoded, and held
///     let mainActorIsFree = await MainActorProbe.runsJob(events: events)
///     gate.release(0)
///
/// Only the arrivals named in `holding` block; the others pass at once. A
/// held point the test never releases lets go by itself after five hang
/// bounds (see ``hangBound``) and records so, so that a wrong check cannot
/// hang the run.
public final class ThreadGate: Sendable {
  private struct State: Sendable {
    var arrivals: [String] = []
    var released: Set<Int> = []
  }

  private let name: String
  private let events: EventLog
  private let holding: Set<Int>
  private let state: WaitableState<State>
  /// Wakes the threads blocked in ``pass(_:)``.
  private let condition = ConditionBox()

  /// Creates a gate whose arrivals are logged as `name(argument) called`, and
  /// which holds the arrivals numbered in `holding` (0-based).
  public init(_ name: String, events: EventLog, holding: Set<Int>) {
    self.name = name
    self.events = events
    self.holding = holding
    self.state = WaitableState(State())
  }

  // MARK: - The fake's side

  /// Records an arrival and, if the test holds it, blocks the calling thread
  /// until the test releases it.
  public func pass(_ argument: some CustomStringConvertible) {
    let index = state.update { state in
      state.arrivals.append(argument.description)
      return state.arrivals.count - 1
    }
    events.record("\(name)(\(argument)) called")
    guard holding.contains(index) else { return }
    let bound = Double(hangBound.components.seconds) + Double(hangBound.components.attoseconds) / 1e18
    let deadline = Date(timeIntervalSinceNow: bound * 5)
    let releasedInTime = condition.wait(until: deadline) { self.state.current.released.contains(index) }
    if !releasedInTime {
      events.record(
        EventWords.hangGuard + "\(name)(\(argument)) was held and never released; the kit let it go")
    }
  }

  // MARK: - The test's side

  /// How many times the work has reached the gate.
  public var arrivalCount: Int { state.current.arrivals.count }

  /// The arguments of the arrivals so far, in order.
  public var arrivals: [String] { state.current.arrivals }

  /// Suspends until arrival `index` (0-based) has reached the gate.
  ///
  /// Fails the check if it does not arrive within the hang bound.
  public func waitForArrival(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    do {
      try await state.wait(until: { $0.arrivals.count > index })
    } catch is WaitTimedOut {
      let count = arrivalCount
      try events.stop(
        "Expected \(index == 0 ? "a call" : "call \(index + 1)") to \(name) within \(hangBound.formatted).",
        actual: count == 0 ? "\(name) was never called" : "only \(count) call(s) arrived",
        sourceLocation: sourceLocation)
    }
  }

  /// Lets held arrival `index` go on; releasing one that is not held yet lets
  /// it pass when it comes.
  public func release(_ index: Int) {
    state.update { $0.released.insert(index) }
    condition.broadcast()
  }

  /// Lets every held arrival go on, now and later.
  public func releaseAll() {
    state.update { $0.released.formUnion(holding) }
    condition.broadcast()
  }
}

/// Runs a job on the main actor and reports whether it ran in time: the test's
/// way to ask "is the main actor free right now?".
///
/// While work on the main actor is held (at a ``ThreadGate``), no other job
/// can run there; a free main actor runs the probe's job within a few
/// scheduler hops. The probe waits up to the hang bound, which correct code
/// never comes near; a job that did not run in time still runs once the main
/// actor is free, and does nothing.
///
///     try await gate.waitForArrival(0)
///     let free = await MainActorProbe.runsJob(events: events)
///     gate.release(0)
///     events.expect(free, equals: true, "The main actor runs other work while the photo decodes")
///
/// Call it from a task that is not on the main actor (a check that is not
/// `@MainActor`), or it waits for itself.
public enum MainActorProbe {
  /// Enqueues an empty job on the main actor and returns whether it ran within
  /// `limit`, recording the answer in `events`.
  public static func runsJob(events: EventLog, within limit: Duration = hangBound) async -> Bool {
    let ran = WaitableState(false)
    Task { @MainActor in ran.update { $0 = true } }
    do {
      try await ran.wait(until: { $0 }, limit: limit)
      events.record("main actor ran a job")
      return true
    } catch {
      events.record("main actor ran no job within \(limit.formatted): something holds it")
      return false
    }
  }
}

/// A condition variable around a predicate, for threads that must block.
private final class ConditionBox: @unchecked Sendable {
  // NSCondition is thread-safe; the class only carries it across threads.
  private let condition = NSCondition()

  /// Blocks until `isSatisfied()` holds or `deadline` passes; returns whether it held.
  func wait(until deadline: Date, _ isSatisfied: () -> Bool) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while !isSatisfied() {
      if !condition.wait(until: deadline) { return isSatisfied() }
    }
    return true
  }

  func broadcast() {
    condition.lock()
    condition.broadcast()
    condition.unlock()
  }
}
