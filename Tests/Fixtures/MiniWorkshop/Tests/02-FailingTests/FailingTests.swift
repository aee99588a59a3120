import Testing

@testable import Failing

@Suite struct FailingTests {
  @Test("Adds two numbers") func adds() {
    // Learner code may print anything, even text that looks like a pass.
    print("✔ Test \"Adds two numbers\" passed after 0.001 seconds.")
    #expect(add(2, 3) == 5, "2 + 3 is 5")
  }
  @Test("Negates") func negates() { #expect(negate(2) == -2) }
}
