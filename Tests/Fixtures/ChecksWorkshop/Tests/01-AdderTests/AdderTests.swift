import Adder
import Testing

@Suite("Adder")
struct AdderTests {
  @Test("Adds two numbers") func adds() { #expect(add(2, 3) == 5, "2 + 3 is 5") }
  @Test("Adds zero") func zero() { #expect(add(7, 0) == 7) }
}
