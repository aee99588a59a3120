import ConcurrencyTestKit
import Testing

@Suite("EventLog")
struct EventLogTests {
  @Test("The transcript numbers events in order")
  func transcript() {
    let events = EventLog()
    #expect(events.transcript == "Recorded events: (none)")
    events.record("one")
    events.record("two")
    #expect(events.transcript == "Recorded events:\n  1. one\n  2. two")
  }

  @Test("A failed expectation says the behaviour, what was expected, what happened, and the log")
  func failureMessage() {
    let events = EventLog()
    events.record("search(\"sw\") called")
    withKnownIssue {
      events.expect(["sw"], equals: ["swift"], "Only the latest keyword is sent")
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        Only the latest keyword is sent
        Expected: ["swift"]
        Actual:   ["sw"]
        Recorded events:
          1. search("sw") called
        """
      ]
    }
  }

  @Test("A sentence is a note in the check's own lane; a structured event keeps its lanes and label")
  func structure() {
    let events = EventLog()
    events.record("order 2 of 6")
    events.record(.call("user typed \"sw\"", from: .caller("user"), label: "typed \"sw\""))
    events.record(.publish("screen shows []", to: .caller("screen"), label: "[]"))
    #expect(events.events[0] == .note("order 2 of 6", in: .checks))
    #expect(events.events[0].label == "order 2 of 6")
    #expect(events.events[1].from == .caller("user") && events.events[1].to == .code)
    #expect(events.events[2].kind == .publish && events.events[2].from == .code)
    #expect(events.sentences == ["order 2 of 6", "user typed \"sw\"", "screen shows []"])
  }

  @Test("A failure's verdict survives its attachment's JSON, and nothing else decodes as one")
  func verdictAttachment() {
    let events = EventLog()
    events.record(.call("search(\"sw\") called", to: .service("search"), label: "search(\"sw\")").wrong())
    let verdict = Verdict(
      behaviour: "Only the latest keyword is sent", expected: "1", actual: "2", events: events.events,
      unfinished: "search(_:)")
    #expect(Verdict(attachment: verdict.attachmentBytes) == verdict)
    #expect(Verdict(attachment: Array(#"{"behaviour":"x"}"#.utf8)) == nil)
    #expect(Verdict(attachment: Array("not json".utf8)) == nil)
    var other = verdict
    other.format = "workshop-verdict-0"
    #expect(Verdict(attachment: other.attachmentBytes) == nil)
  }

  @Test("A passing expectation records nothing")
  func passing() throws {
    let events = EventLog()
    events.expect(1, equals: 1, "equal")
    events.expect(true, "true")
    try events.require(2, equals: 2, "equal")
  }

  @Test("require stops the check with one issue")
  func requireStops() throws {
    let events = EventLog()
    try withKnownIssue {
      try events.require(false, "Must hold", actual: "it did not")
      Issue.record("not reached")
    } matching: { issue in
      issue.comments.contains { $0.rawValue.hasPrefix("Must hold\nActual:   it did not") }
    }
  }

  @Test("Optionals show as their value or nil")
  func showOptionals() {
    #expect(show(Optional("a")) == #""a""#)
    #expect(show(Optional<Int>.none) == "nil")
    #expect(show([1, 2]) == "[1, 2]")
  }

  @Test("A priority shows under the name an app gives it, with its other name")
  func showPriorities() {
    #expect(show(TaskPriority.userInitiated) == "TaskPriority.userInitiated (= .high)")
    #expect(show(TaskPriority.high) == show(TaskPriority.userInitiated))
    #expect(show([TaskPriority.low, .medium]) == "[TaskPriority.low (= .utility), TaskPriority.medium]")
    #expect(show(Optional(TaskPriority.background)) == "TaskPriority.background")
  }

  @Test("An enum error shows its own type, also when it was thrown through a continuation")
  func showErrorThroughContinuation() async {
    enum Failure: Error { case gone }
    do {
      _ = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
        continuation.resume(throwing: Failure.gone)
      }
    } catch {
      #expect(show(error) == "Failure.gone")
    }
    let direct: any Error = Failure.gone
    #expect(show(direct) == "Failure.gone")
  }

  @Test("withinTimeLimit returns the operation's value")
  func withinTimeLimitValue() async throws {
    let events = EventLog()
    let value = try await events.withinTimeLimit("an instant operation") { 42 }
    #expect(value == 42)
  }

  @Test("withinTimeLimit fails a never-resumed continuation within the bound instead of hanging")
  func withinTimeLimitHang() async throws {
    let events = EventLog()
    let start = ContinuousClock.now
    try await withKnownIssue {
      try await events.withinTimeLimit("a continuation nobody resumes") {
        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
      }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("never finished.\nExpected: it finishes within") }
    }
    #expect(start.duration(to: .now) < .seconds(10))
  }
}
