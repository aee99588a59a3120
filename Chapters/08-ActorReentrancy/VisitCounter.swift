// Chapter 08: Actor reentrancy (exercise 2 of 2)
//
// Goal: `recordVisit()` returns the number of *this* visit, the value it
// counted and saved, even when other visits are recorded while it waits.

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
    await store.save(count)
    // TODO: Which visit's number is this, after the `await` above?
    return count
  }
}
