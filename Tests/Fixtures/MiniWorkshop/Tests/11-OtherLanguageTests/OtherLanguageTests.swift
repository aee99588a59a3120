import Testing

@testable import OtherLanguage

@Suite struct OtherLanguageTests {
  @Test("Returns two") func returnsTwo() { #expect(value() == 2) }
}
