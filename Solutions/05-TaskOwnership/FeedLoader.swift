// Chapter 05: Task ownership (exercise 2 of 2, reference solution)
//
// Goal: the feed model owns its loading task: a new load cancels the previous
// one and a stale result never lands; `stop()` cancels the work; and when the
// screen releases the model, its work is cancelled too.
//
// The fixes:
//   1. The model keeps the handle of its load: a new load cancels the old one,
//      and so do `stop()` and `deinit`.
//   2. After the `await`, a cancelled load publishes nothing: the service may
//      ignore cancellation and answer anyway.
//   3. `[weak self]`: the task does not keep the model alive, so releasing the
//      screen's model really releases it, and its `deinit` runs.

/// The feed backend.
protocol FeedService: Sendable {
  func loadFeed(page: Int) async throws -> [String]
}

/// The state behind a feed screen.
@MainActor
final class FeedModel {
  /// The posts on screen.
  private(set) var posts: [String] = []
  private let service: any FeedService
  private var loading: Task<Void, Never>?

  init(service: any FeedService) {
    self.service = service
  }

  // Releasing the model cancels its load. A plain `deinit` would do here too:
  // `loading` is a `Task` handle, which is Sendable, and `cancel()` is safe
  // from any thread. `isolated deinit` (it runs on the main actor) is needed
  // only to call main-actor methods such as `stop()`, or to touch non-Sendable
  // state, from `deinit`.
  isolated deinit {
    loading?.cancel()
  }

  /// Loads `page` and shows it; returns the task doing it.
  @discardableResult
  func load(page: Int) -> Task<Void, Never> {
    loading?.cancel()
    let service = self.service
    let task = Task { [weak self] in
      do {
        let posts = try await service.loadFeed(page: page)
        guard !Task.isCancelled else { return }
        self?.posts = posts
      } catch {
        // A failed or cancelled load keeps what is on screen.
      }
    }
    loading = task
    return task
  }

  /// Called when the screen disappears: no more work, no more updates.
  func stop() {
    loading?.cancel()
    loading = nil
  }
}
