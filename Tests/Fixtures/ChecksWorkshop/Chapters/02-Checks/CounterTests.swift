// Goal: checks that catch every broken counter and accept every right one.
// TODO: add a check for each promise of `Counter`.
import Counter
import Testing

@Test("Starts at zero") func startsAtZero() { #expect(Counter().value == 0) }
