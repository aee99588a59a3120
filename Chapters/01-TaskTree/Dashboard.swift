// Chapter 01: Task tree (structured concurrency)
//
// Goal: `refresh()` loads the profile, the feed and the badges at the same
// time, as children of the task that called it: the first failure cancels the
// other loads and reaches the caller; cancelling the caller cancels every load;
// `refresh()` returns only when all of its work is over; nothing is shown
// unless all three loads succeed.
//
// Run `swift run workshop check 01` to see which behaviours still fail.

/// The signed-in user, as the dashboard shows them.
struct Profile: Equatable, Sendable, CustomStringConvertible {
  var name: String
  var description: String { "Profile(\(name))" }
}

/// One post in the feed.
struct FeedItem: Equatable, Sendable, CustomStringConvertible {
  var title: String
  var description: String { title }
}

/// One badge the user earned.
struct Badge: Equatable, Sendable, CustomStringConvertible {
  var name: String
  var description: String { name }
}

/// Everything the dashboard screen shows, published all at once.
struct Dashboard: Equatable, Sendable {
  var profile: Profile
  var feed: [FeedItem]
  var badges: [Badge]
}

/// The three independent backend calls behind the dashboard.
protocol DashboardService: Sendable {
  func loadProfile() async throws -> Profile
  func loadFeed() async throws -> [FeedItem]
  func loadBadges() async throws -> [Badge]
}

/// The state behind the dashboard screen.
@MainActor
final class DashboardModel {
  /// What the screen shows; nil until a refresh has fully succeeded.
  private(set) var dashboard: Dashboard?
  /// The last refresh's error, for the screen's banner.
  private(set) var lastError: (any Error)?

  private let service: any DashboardService

  init(service: any DashboardService) {
    self.service = service
  }

  /// Loads everything and publishes it. Throws the first load's error.
  ///
  /// The screen calls it from a task it owns (SwiftUI's `.task` modifier)
  /// and cancels that task when the screen goes away.
  func refresh() async throws {
    // TODO: This `Task {}` is not a child of the caller. The caller goes on at
    // once, cannot cancel it, and never hears about its errors.
    Task {
      do {
        // TODO: These three loads do not depend on each other, yet each one
        // waits for the previous one to finish.
        let profile = try await service.loadProfile()
        let feed = try await service.loadFeed()
        let badges = try await service.loadBadges()
        dashboard = Dashboard(profile: profile, feed: feed, badges: badges)
      } catch {
        lastError = error
      }
    }
  }
}
