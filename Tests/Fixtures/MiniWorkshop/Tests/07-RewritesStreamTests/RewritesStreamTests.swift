import Testing

@testable import RewritesStream

@Suite struct RewritesStreamTests {
  @Test("Returns two") func value() { #expect(RewritesStream.value() == 2) }
}
