import ConcurrencyTestKit
import Synchronization
import Testing

@Suite("TestClock")
struct TestClockTests {
  @Test("A sleeper wakes only once time reaches its deadline")
  func wakesAtDeadline() async throws {
    let clock = TestClock()
    let woke = Mutex(false)
    let sleeper = Task {
      try await clock.sleep(for: .milliseconds(300))
      woke.withLock { $0 = true }
    }
    try await clock.waitForSleepers(1)
    clock.advance(by: .milliseconds(299))
    #expect(clock.sleeperCount == 1)
    #expect(woke.withLock { $0 } == false)
    clock.advance(by: .milliseconds(1))
    try await sleeper.value
    #expect(woke.withLock { $0 })
    #expect(clock.now == TestClock.Instant(offset: .milliseconds(300)))
  }

  @Test("Sleepers due at once wake in deadline order")
  func deadlineOrder() async throws {
    let events = EventLog()
    let clock = TestClock()
    let late = Task {
      try await clock.sleep(for: .seconds(2))
      events.record("2s")
    }
    try await clock.waitForSleepers(1)
    let early = Task {
      try await clock.sleep(for: .seconds(1))
      events.record("1s")
    }
    try await clock.waitForSleepers(2)
    clock.advance(by: .seconds(1))
    try await early.value
    clock.advance(by: .seconds(1))
    try await late.value
    #expect(events.sentences == ["1s", "2s"])
  }

  @Test("A deadline already passed does not suspend")
  func pastDeadline() async throws {
    let clock = TestClock()
    clock.advance(by: .seconds(5))
    try await clock.sleep(until: TestClock.Instant(offset: .seconds(1)))
    #expect(clock.sleeperCount == 0)
  }

  @Test("Cancelling a sleeper wakes it at once with CancellationError")
  func cancelWhileSleeping() async throws {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    try await clock.waitForSleepers(1)
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
  }

  @Test("A task cancelled before it sleeps throws at once and never registers")
  func cancelledBeforeSleeping() async throws {
    let clock = TestClock()
    let sleeper = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
  }

  @Test("Sleeps and advances are written to the event log")
  func logging() async throws {
    let events = EventLog()
    let clock = TestClock(events: events)
    let sleeper = Task { try await clock.sleep(for: .milliseconds(300)) }
    try await clock.waitForSleepers(1)
    clock.advance(by: .milliseconds(300))
    try await sleeper.value
    #expect(events.sentences == ["clock: sleep until t=300ms (now t=0s)", "clock: advanced to t=300ms"])
  }

  @Test("Waiting for a sleeper that never comes fails the check within the bound")
  func waitForSleepersFails() async throws {
    let clock = TestClock()
    try await withKnownIssue {
      try await clock.waitForSleepers(1)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("Expected 1 sleeping task(s) on the clock within") }
    }
  }
}
