// Chapter 05: Task ownership (exercise 2 of 2)
//
// Goal: the feed model owns its loading task: a new load cancels the previous
// one and a stale result never lands; `stop()` cancels the work; and when the
// screen releases the model, its work is cancelled too.

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

  init(service: any FeedService) {
    self.service = service
  }

  /// Loads `page` and shows it; returns the task doing it.
  @discardableResult
  func load(page: Int) -> Task<Void, Never> {
    // TODO: Nobody keeps this task: the previous load is never cancelled, and
    // its late result can replace the newer one. It also holds on to `self`,
    // so the model outlives its screen while a load is in flight.
    Task {
      do {
        posts = try await service.loadFeed(page: page)
      } catch {
        // A failed load keeps what is on screen.
      }
    }
  }

  /// Called when the screen disappears: no more work, no more updates.
  func stop() {
    // TODO: Cancel the work in flight.
  }

  // TODO: And when the screen lets go of the model without calling stop()?
}
