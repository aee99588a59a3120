import Testing

@testable import Hanging

@Suite struct HangingTests {
  @Test("Waits for a signal") func waits() async { await waitForSignal() }
  @Test("Answers at once") func answers() { #expect(answer() == 42) }
}
