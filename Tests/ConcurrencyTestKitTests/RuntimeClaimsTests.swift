import ConcurrencyTestKit
import Synchronization
import Testing

// What the decks say the concurrency runtime does, checked on every run of
// the kit's tests, so that a slide cannot outlive the runtime it describes.
// These are facts about Swift, not about the learner's code: the chapters'
// checks build on them (a check that reads a priority reads it before any
// waiter can escalate it, for instance).

/// A task-local for the claims below.
private enum Claim {
  @TaskLocal static var trace: String?
}

/// Runs `body` in a `@concurrent` function: off any actor, in the caller's task.
@concurrent
private func concurrently<Value: Sendable>(_ body: @Sendable () -> Value) async -> Value { body() }

@Suite("What the decks say the runtime does")
struct RuntimeClaimsTests {
  @Test(
    "Task { } inherits its creator's priority; Task.detached starts at a priority of its own (decks 09, 14)")
  func creationPriority() async throws {
    // Read in a task nobody awaits until it has answered: awaiting it would
    // escalate it, and the tasks it then creates, to the waiter's priority.
    let answer = Mutex<(inherited: TaskPriority, detached: TaskPriority)?>(nil)
    let answered = Latch()
    Task(priority: .low) {
      let inherited = await Task { Task.currentPriority }.value
      let detached = await Task.detached { Task.currentPriority }.value
      answer.withLock { $0 = (inherited, detached) }
      answered.open()
    }
    await answered.wait()
    let (inherited, detached) = try #require(answer.withLock { $0 })
    #expect(inherited == .low)
    #expect(detached != .low)
  }

  @Test(
    "Task { } and a @concurrent call keep the creator's task-locals; Task.detached starts without them (deck 14)"
  )
  func taskLocals() async {
    let (child, concurrent, detached) = await Claim.$trace.withValue("t-1") {
      (
        await Task { Claim.trace }.value,
        await concurrently { Claim.trace },
        await Task.detached { Claim.trace }.value
      )
    }
    #expect(child == "t-1")
    #expect(concurrent == "t-1")
    #expect(detached == nil)
  }

  @Test("Cancelling a task that awaits a detached task's value does not cancel the detached task (deck 14)")
  func detachedIgnoresTheWaitersCancel() async throws {
    let events = EventLog()
    let gate = CallGate<Void, Void>("wait", events: events, ignoresCancellation: true)
    let detached = Task.detached {
      try await gate.call(())
      return Task.isCancelled
    }
    let waiter = Task { try await detached.value }
    try await gate.waitForCall(0)
    waiter.cancel()
    gate.succeed(0, with: ())
    #expect(try await detached.value == false)
    _ = try? await waiter.value
  }

  @Test("Cancelling a task reaches a @concurrent function it is running (deck 14)")
  func concurrentSeesTheCancel() async throws {
    let events = EventLog()
    let gate = CallGate<Void, Void>("wait", events: events, ignoresCancellation: true)
    let task = Task {
      try await gate.call(())
      return await concurrently { Task.isCancelled }
    }
    try await gate.waitForCall(0)
    task.cancel()
    gate.succeed(0, with: ())
    #expect(try await task.value == true)
  }

  /// The runtime calls the escalation handler (SE-0462) when it raises the
  /// task's priority, so the check waits for that instead of for time; an
  /// escalation that came before the handler was installed is already in
  /// `Task.currentPriority` when the operation starts.
  @Test("A task awaited by a higher-priority task runs at the waiter's priority from then on (deck 09)")
  @available(macOS 26, *)
  func escalation() async throws {
    let escalated = Latch()
    let low = Task(priority: .low) {
      await withTaskPriorityEscalationHandler {
        if Task.currentPriority >= .high { escalated.open() }
        await escalated.wait()
      } onPriorityEscalated: { _, _ in
        escalated.open()
      }
      return Task.currentPriority
    }
    let high = Task(priority: .high) { await low.value }
    #expect(await high.value == .high)
  }
}
