import ConcurrencyTestKit
import Foundation
import Synchronization
import Testing

/// A flag checked under the lock and set under it again: the mistake
/// overlap checks are there to catch.
private final class TwoStepGuard: Sendable {
  private let taken = Mutex(false)
  private let through = Atomic(0)

  var passed: Int { through.load(ordering: .relaxed) }

  func pass() {
    guard !taken.withLock({ $0 }) else { return }
    taken.withLock { $0 = true }
    through.add(1, ordering: .relaxed)
  }
}

/// The same guard, checked and set in one critical section.
private final class OneStepGuard: Sendable {
  private let taken = Mutex(false)
  private let through = Atomic(0)

  var passed: Int { through.load(ordering: .relaxed) }

  func pass() {
    let first = taken.withLock { taken in
      defer { taken = true }
      return !taken
    }
    if first { through.add(1, ordering: .relaxed) }
  }
}

/// A flag loaded and then stored: the narrowest two-step window, which
/// passed chapter 06's check in CI while the kit proved meetings with a
/// wider one.
private final class LoadThenStoreGuard: Sendable {
  private let taken = Atomic(false)
  private let through = Atomic(0)

  var passed: Int { through.load(ordering: .relaxed) }

  func pass() {
    guard !taken.load(ordering: .acquiring) else { return }
    taken.store(true, ordering: .releasing)
    through.add(1, ordering: .relaxed)
  }
}

/// A guard meant to let one thread of many through.
private protocol OnceGuard: Sendable {
  /// How many threads got through.
  var passed: Int { get }
  func pass()
}

extension TwoStepGuard: OnceGuard {}
extension LoadThenStoreGuard: OnceGuard {}

/// The two-step mistakes an overlap check must catch, widest window first.
private enum TwoStepMistake: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case checkThenSetInTwoLocks = "a check-then-set split over two locks"
  case atomicLoadThenStore = "an Atomic loaded in one step and stored in the next"

  var testDescription: String { rawValue }

  func makeGuard() -> any OnceGuard {
    switch self {
    case .checkThenSetInTwoLocks: TwoStepGuard()
    case .atomicLoadThenStore: LoadThenStoreGuard()
    }
  }
}

private struct TwoThreadsGotThrough: Error {}

@Suite("SeparateThreads")
struct SeparateThreadsTests {
  // Not under ThreadSanitizer, whose 20 rounds need no overlap to see a data
  // race, and whose verdict these guards (race-free) never get.
  @Test(
    "An overlap check catches a two-step guard before it may pass",
    .enabled(if: !SeparateThreads.underThreadSanitizer, "ThreadSanitizer plays no overlap rounds"),
    arguments: TwoStepMistake.allCases)
  fileprivate func catchesTwoSteps(_ mistake: TwoStepMistake) async {
    let events = EventLog()
    await #expect(throws: TwoThreadsGotThrough.self) {
      try await SeparateThreads.playOverlapping(mistake.rawValue, events: events) { _ in
        let guardFlag = mistake.makeGuard()
        await SeparateThreads.run(
          (0..<SeparateThreads.overlapThreads).map { _ in { guardFlag.pass() } })
        if guardFlag.passed > 1 { throw TwoThreadsGotThrough() }
      }
    }
  }

  @Test("A closure that never returns keeps its thread; the next release runs on others")
  func stuckThreadIsNotReused() async throws {
    let stuck = WaitableFlag()
    let unblock = WaitableFlag()
    SeparateThreads.start([
      {
        stuck.raise()
        unblock.wait()
      },
      {},
    ])
    stuck.wait()
    let events = EventLog()
    let ran = Tally()
    try await events.withinTimeLimit("a release while another thread is stuck") {
      await SeparateThreads.run([{ ran.add() }, { ran.add() }])
    }
    unblock.raise()
    #expect(ran.count == 2, "Both closures of the next release ran")
  }

  @Test(
    "A right guard passes only after the least rounds and the kit's own code lost updates enough times",
    .enabled(if: !SeparateThreads.underThreadSanitizer, "ThreadSanitizer plays no overlap rounds"),
    arguments: [nil, 3 * SeparateThreads.minimumOverlapRounds])
  func rightPassesWithProof(asked: Int?) async throws {
    let least = asked ?? SeparateThreads.minimumOverlapRounds
    let events = EventLog()
    let rounds = Atomic(0)
    try await SeparateThreads.playOverlapping("a one-step guard", minimumRounds: least, events: events) { _ in
      rounds.add(1, ordering: .relaxed)
      let guardFlag = OneStepGuard()
      await SeparateThreads.run(
        (0..<SeparateThreads.overlapThreads).map { _ in { guardFlag.pass() } })
      try events.require(guardFlag.passed, equals: 1, "One thread gets through")
    }
    #expect(rounds.load(ordering: .relaxed) >= least)
    let summary = try #require(events.sentences.last)
    #expect(summary.contains("no failure"))
    #expect(summary.contains("lost an update"))
  }
}

/// A flag one thread waits on until another raises it.
private final class WaitableFlag: @unchecked Sendable {
  // Guarded by `condition`.
  private var raised = false
  private let condition = NSCondition()

  func raise() {
    condition.withLock {
      raised = true
      condition.broadcast()
    }
  }

  func wait() {
    condition.withLock {
      while !raised { condition.wait() }
    }
  }
}

/// A count threads add to.
private final class Tally: Sendable {
  private let value = Atomic(0)
  var count: Int { value.load(ordering: .relaxed) }
  func add() { value.add(1, ordering: .relaxed) }
}
