import Testing

@testable import Broken

@Suite struct BrokenTests {
  @Test("Never runs") func neverRuns() { #expect(broken() == 1) }
}
