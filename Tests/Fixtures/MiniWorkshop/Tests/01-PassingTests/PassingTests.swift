import Testing

@testable import Passing

@Suite struct PassingTests {
  @Test("Adds two numbers") func adds() { #expect(add(2, 3) == 5) }
  @Test("Adds zero") func addsZero() { #expect(add(2, 0) == 2) }
}
