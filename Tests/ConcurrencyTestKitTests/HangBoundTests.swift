import ConcurrencyTestKit
import Testing

@Suite("Hang bound", .hangBound(.milliseconds(300)))
struct HangBoundTests {
  @Test("A suite's trait gives its tests their hang bound")
  func suiteTrait() {
    #expect(hangBound == .milliseconds(300))
  }

  @Test("A test's own trait wins over its suite's, in the tasks it starts too", .hangBound(.milliseconds(50)))
  func testTrait() async {
    #expect(hangBound == .milliseconds(50))
    #expect(await Task { hangBound }.value == .milliseconds(50))
  }

  @Test(
    "A wait that never ends fails the check once the trait's bound has passed", .hangBound(.milliseconds(50)))
  func waitsForTheTraitsBound() async throws {
    let events = EventLog()
    let clock = ContinuousClock()
    let start = clock.now
    try await withKnownIssue {
      try await events.withinTimeLimit("a wait that never ends") {
        // Nothing is ever sent: only the hang guard's cancellation ends it.
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        for await _ in stream {}
        continuation.finish()
      }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.hasPrefix("a wait that never ends never finished.") }
    }
    #expect(clock.now - start >= .milliseconds(50))
    #expect(
      events.sentences.contains { $0.hasSuffix("still not finished after 50ms") },
      "It gave up at the test's 50 ms, not its suite's 300 ms: \(events.sentences)")
  }
}
