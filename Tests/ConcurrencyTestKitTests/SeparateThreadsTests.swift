import ConcurrencyTestKit
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

private struct TwoThreadsGotThrough: Error {}

@Suite("SeparateThreads")
struct SeparateThreadsTests {
  // Not under ThreadSanitizer, whose 20 rounds need no overlap to see a data
  // race, and whose verdict these guards (race-free) never get.
  @Test(
    "An overlap check catches a check-then-set split over two locks before it may pass",
    .enabled(if: !SeparateThreads.underThreadSanitizer, "ThreadSanitizer plays no overlap rounds"))
  func catchesTwoSteps() async {
    let events = EventLog()
    await #expect(throws: TwoThreadsGotThrough.self) {
      try await SeparateThreads.playOverlapping("a two-step guard", events: events) { _ in
        let guardFlag = TwoStepGuard()
        await SeparateThreads.run(
          (0..<SeparateThreads.overlapThreads).map { _ in { guardFlag.pass() } })
        if guardFlag.passed > 1 { throw TwoThreadsGotThrough() }
      }
    }
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
    let summary = try #require(events.events.last)
    #expect(summary.contains("no failure"))
    #expect(summary.contains("lost an update"))
  }
}
