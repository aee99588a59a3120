import ConcurrencyTestKit
import Synchronization
import Testing

private actor Counter {
  var value = 0
  func increment(through gate: CallGate<Int, Void>) async throws -> Int {
    value += 1
    let seen = value
    try await gate.call(seen)
    return value
  }
}

@Suite("StepExecutor")
struct StepExecutorTests {
  @Test("Spawned tasks make no progress until the test runs the executor")
  func nothingRunsUntilAsked() async throws {
    let executor = StepExecutor()
    let task = executor.spawn("answer") { 42 }
    #expect(!task.isFinished)
    #expect(executor.runUntilIdle() > 0)
    #expect(task.value == 42)
  }

  @Test("After runUntilIdle, every task has reached its suspension point")
  func interleavingIsDecided() async throws {
    let events = EventLog()
    let executor = StepExecutor(events: events)
    let gate = CallGate<Int, Void>("save", events: events)
    let counter = Counter()
    let first = executor.spawn("first") { try await counter.increment(through: gate) }
    let second = executor.spawn("second") { try await counter.increment(through: gate) }
    executor.runUntilIdle()
    // Both have entered the actor and are suspended at the gate, in spawn order.
    #expect(gate.arguments == [1, 2])
    gate.succeed(0, with: ())
    gate.succeed(1, with: ())
    try await executor.run(until: { first.isFinished && second.isFinished }, "both tasks to finish")
    #expect(first.value == 2 && second.value == 2)
  }

  @Test("run(until:) also waits for work that arrives from other executors")
  func waitsForOutsideWork() async throws {
    let executor = StepExecutor()
    let outside = Task.detached { 7 }
    let task = executor.spawn("awaits outside work") { await outside.value }
    try await executor.run(until: { task.isFinished }, "the task to finish")
    #expect(task.value == 7)
  }

  @Test("run(until:) sees a condition that work on another executor meets, though nothing is enqueued here")
  func seesOutsideConditions() async throws {
    let executor = StepExecutor()
    let looked = AsyncStream.makeStream(of: Void.self)
    let met = Mutex(false)
    // Met only after run(until:) has looked once and found it unmet.
    let outside = Task.detached {
      for await _ in looked.stream { break }
      met.withLock { $0 = true }
    }
    try await executor.run(
      until: {
        looked.continuation.yield()
        return met.withLock { $0 }
      }, "the outside task to meet the condition")
    await outside.value
  }
}
