// Chapter 04: Debounced search (reference solution)
//
// Goal: the search screen sends one request, for the latest keyword, once the
// user has stopped typing for `debounce`; a late answer for an old keyword never
// replaces newer results; stopping the screen stops every update; cancelling
// an old search is never shown to the user as an error.
//
// Three gates, each fixing one bug of the starter:
//   1. `try await` on the sleep: a cancelled keystroke ends its task right there.
//   2. A revision number: only the task of the latest keystroke may publish,
//      even when the service ignores cancellation and answers late.
//   3. Cancellation is caught apart from real errors and changes nothing.

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
  /// Bumped by every keystroke and by `stop()`; a task publishes only while
  /// the revision it started with is still the current one.
  private var revision = 0

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
    revision &+= 1
    let myRevision = revision
    let query = text.trimmingCharacters(in: .whitespacesAndNewlines)

    let task = Task {
      guard !query.isEmpty else {
        products = []
        errorMessage = nil
        return
      }

      do {
        // Fix 1: `try`, not `try?`. A newer keystroke cancels this task, the
        // sleep throws `CancellationError`, and no request is ever sent.
        try await clock.sleep(for: debounce)
        let results = try await service.search(query)
        // Fix 2: a service may ignore cancellation and answer anyway; only the
        // latest keystroke's answer reaches the screen.
        guard myRevision == revision else { return }
        products = results
        errorMessage = nil
      } catch is CancellationError {
        // Fix 3: being cancelled means "a newer keystroke took over" or "the
        // screen went away". Neither is a failure: leave the screen as it is.
      } catch {
        // A real error, shown only if it belongs to the latest keystroke.
        guard myRevision == revision else { return }
        products = []
        errorMessage = "Search failed: \(error)"
      }
    }
    searchTask = task
    return task
  }

  /// Called when the screen goes away: nothing may update the model afterwards.
  func stop() {
    // Bumping the revision also silences an answer that ignores cancellation.
    revision &+= 1
    searchTask?.cancel()
    searchTask = nil
  }
}
