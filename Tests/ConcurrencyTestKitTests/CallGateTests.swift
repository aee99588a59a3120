import ConcurrencyTestKit
import Testing

private struct Boom: Error, CustomStringConvertible {
  var description: String { "Boom" }
}

@Suite("CallGate")
struct CallGateTests {
  @Test("Calls return in the order the test answers them, not the order they came in")
  func answerOrder() async throws {
    let events = EventLog()
    let gate = CallGate<String, Int>("fetch", events: events)
    let first = Task { try await gate.call("a") }
    #expect(try await gate.waitForCall(0) == "a")
    let second = Task { try await gate.call("b") }
    #expect(try await gate.waitForCall(1) == "b")
    gate.succeed(1, with: 2)
    #expect(try await second.value == 2)
    gate.fail(0, with: Boom())
    await #expect(throws: Boom.self) { try await first.value }
    #expect(
      events.sentences == [
        #"fetch("a") called"#, #"fetch("b") called"#, #"fetch("b") returned 2"#, #"fetch("a") threw Boom"#,
      ])
    #expect(gate.arguments == ["a", "b"])
  }

  @Test("A cancelled caller gets CancellationError at once, and the gate records it")
  func respectsCancellation() async throws {
    let gate = CallGate<String, Int>("fetch", events: EventLog())
    let caller = Task { try await gate.call("a") }
    try await gate.waitForCall(0)
    caller.cancel()
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(gate.wasCancelled(0))
    #expect(!gate.isWaiting(0))
  }

  @Test("A gate that ignores cancellation keeps the caller waiting and answers late")
  func ignoresCancellation() async throws {
    let events = EventLog()
    let gate = CallGate<String, Int>("fetch", events: events, ignoresCancellation: true)
    let caller = Task { try await gate.call("a") }
    try await gate.waitForCall(0)
    caller.cancel()
    try await gate.waitForCancellation(of: 0)
    #expect(gate.isWaiting(0))
    gate.succeed(0, with: 1)
    #expect(try await caller.value == 1)
    #expect(events.sentences.last == #"fetch("a") returned 1 (late: its caller was cancelled)"#)
    // The late answer goes from the service's lane to the code's, marked as
    // one that should not have been used.
    let late = try #require(events.events.last)
    #expect(late.kind == .answer && late.from == .service("fetch") && late.to == .code)
    #expect(late.label == "1" && late.isWrong)
  }

  @Test("A gate records its calls in the lane of the service it stands for, the owner of a method")
  func lanes() async throws {
    let events = EventLog()
    let gate = CallGate<Int, Void>("store.save", events: events)
    let caller = Task { try await gate.call(2) }
    try await gate.waitForCall(0)
    gate.succeed(0, with: ())
    try await caller.value
    let (call, answer) = (events.events[0], events.events[1])
    #expect(call.kind == .call && call.from == .code && call.to == .service("store"))
    #expect(call.label == "store.save(2)" && !call.isWrong)
    #expect(answer.kind == .answer && answer.from == .service("store") && answer.label == "()")
  }

  @Test("A call made by an already cancelled task is recorded and ends at once")
  func cancelledBeforeCalling() async throws {
    let gate = CallGate<String, Int>("fetch", events: EventLog())
    let caller = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await gate.call("a")
    }
    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(gate.callCount == 1)
    #expect(gate.wasCancelled(0))
  }

  @Test("Waiting for a call that never comes fails the check with the log")
  func missingCall() async throws {
    let gate = CallGate<String, Int>("fetch", events: EventLog())
    try await withKnownIssue {
      try await gate.waitForCall(0)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("Expected a call to fetch within") }
    }
  }

  @Test("Answering a call that never came is reported as a test bug")
  func answeringUnknownCall() {
    let gate = CallGate<String, Int>("fetch", events: EventLog())
    withKnownIssue {
      gate.succeed(3, with: 1)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("Test bug") }
    }
  }
}
