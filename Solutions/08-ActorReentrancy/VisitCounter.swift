// Chapter 08: Actor reentrancy (exercise 2 of 2, reference solution)
//
// Goal: `recordVisit()` returns the number of *this* visit, the value it
// counted and saved, even when other visits are recorded while it waits.
//
// The fix: take the number into a local constant before the `await`. Actor
// state read after a suspension point may have been changed by other calls;
// a local cannot.

/// Where visit counts are persisted.
protocol CounterStore: Sendable {
  /// Saves the latest count.
  func save(_ count: Int) async
}

/// Counts the visits of a page.
actor VisitCounter {
  private let store: any CounterStore
  private var count = 0

  init(store: any CounterStore) {
    self.store = store
  }

  /// Records one visit and returns its number: 1 for the first, 2 for the second...
  func recordVisit() async -> Int {
    count += 1
    let number = count
    await store.save(number)
    return number
  }
}
