import Testing

@testable import ForgesVerdict

@Suite struct ForgesVerdictTests {
  @Test("Returns two") func value() { #expect(ForgesVerdict.value() == 2) }
}
