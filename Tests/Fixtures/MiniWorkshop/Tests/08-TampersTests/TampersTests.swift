import Testing

@testable import Tampers

@Suite struct TampersTests {
  @Test("Returns two") func value() { #expect(Tampers.value() == 2) }
}
