import Testing

@testable import EntryPoint

@Suite struct EntryPointTests {
  @Test("Returns two") func returnsTwo() { #expect(value() == 2) }
}
