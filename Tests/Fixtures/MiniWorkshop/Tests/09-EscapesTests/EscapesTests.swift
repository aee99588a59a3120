import Testing

@testable import Escapes

@Suite struct EscapesTests {
  @Test("Returns two") func value() { #expect(escape() == 2) }
}
