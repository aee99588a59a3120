import Testing

@testable import Crashing

@Suite(.serialized) struct CrashingTests {
  @Test("Divides") func divides() { #expect(divide(6, by: 3) == 2) }
  @Test("Divides safely") func dividesSafely() { #expect(divide(1, by: 0) == 0) }
}
