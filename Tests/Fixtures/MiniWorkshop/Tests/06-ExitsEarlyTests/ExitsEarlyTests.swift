import Testing

@testable import ExitsEarly

@Suite(.serialized) struct ExitsEarlyTests {
  @Test("Adds") func adds() { #expect(add(2, 3) == 5) }
  @Test("Answers") func answers() { #expect(answer() == 42) }
}
