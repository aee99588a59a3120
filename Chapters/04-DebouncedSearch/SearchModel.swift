// Chapter 04: Debounced search
//
// Goal: the search screen sends one request, for the latest keyword, once the
// user has stopped typing for `debounce`; a late answer for an old keyword never
// replaces newer results; stopping the screen stops every update; cancelling
// an old search is never shown to the user as an error.
//
// Run `swift run workshop check 04` to see which behaviours still fail.

import Foundation

/// A product returned by the search service.
struct Product: Equatable, Sendable, CustomStringConvertible {
  var name: String
  var description: String { name }
}

/// The backend the search screen talks to.
protocol ProductSearching: Sendable {
  /// Returns the products matching `query`.
  func search(_ query: String) async throws -> [Product]
}

/// The state behind a search screen: what the user typed, what they see.
@MainActor
final class SearchModel {
  /// The results on screen.
  private(set) var products: [Product] = []
  /// The error on screen, if any.
  private(set) var errorMessage: String?

  private let service: any ProductSearching
  private let clock: any Clock<Duration>
  private let debounce: Duration
  private var searchTask: Task<Void, Never>?

  init(
    service: any ProductSearching,
    clock: any Clock<Duration> = ContinuousClock(),
    debounce: Duration = .milliseconds(300)
  ) {
    self.service = service
    self.clock = clock
    self.debounce = debounce
  }

  /// Called on every keystroke with the whole text of the search field.
  ///
  /// Returns the task that handles this keystroke; the screen ignores it, and
  /// tests await it to know this keystroke's work is over.
  @discardableResult
  func searchTextDidChange(_ text: String) -> Task<Void, Never> {
    searchTask?.cancel()
    let query = text.trimmingCharacters(in: .whitespacesAndNewlines)

    let task = Task {
      guard !query.isEmpty else {
        products = []
        errorMessage = nil
        return
      }

      // TODO: Wait out the quiet window. A cancelled keystroke must stop here.
      try? await clock.sleep(for: debounce)

      do {
        let results = try await service.search(query)
        // TODO: Only the latest keyword may publish. A service that ignores
        // cancellation can still answer for an old keyword after a newer one.
        products = results
        errorMessage = nil
      } catch {
        // TODO: Cancelling an old search is not a failure the user should see,
        // and it should not wipe the list. Real errors of the latest keyword are.
        products = []
        errorMessage = "Search failed: \(error)"
      }
    }
    searchTask = task
    return task
  }

  /// Called when the screen goes away: nothing may update the model afterwards.
  func stop() {
    // TODO: Make sure no search started before `stop()` can still publish.
    searchTask?.cancel()
  }
}
