// Fixed: one check per promise, each deciding what it sees.
import Counter
import Testing

@Test("Starts at zero") func startsAtZero() { #expect(Counter().value == 0) }

@Test("One tap counts one") func oneTap() {
  var counter = Counter()
  counter.tap()
  #expect(counter.value == 1)
}

@Test("Reset goes back to zero") func reset() {
  var counter = Counter()
  counter.tap()
  counter.reset()
  #expect(counter.value == 0)
}
