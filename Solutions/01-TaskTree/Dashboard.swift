// Chapter 01: Task tree (structured concurrency, reference solution)
//
// Goal: `refresh()` loads the profile, the feed and the badges at the same
// time, as children of the task that called it: the first failure cancels the
// other loads and reaches the caller; cancelling the caller cancels every load;
// `refresh()` returns only when all of its work is over; nothing is shown
// unless all three loads succeed.
//
// The fixes:
//   1. No `Task {}`: the loads run in a throwing task group, a child scope of
//      the caller's task. Cancelling the caller cancels the group and every
//      load in it; the group does not return before every child has finished.
//   2. The three loads are children of the group, so they run at the same time.
//   3. `group.next()` hands back results as they finish; the first error
//      leaves the group's scope, which cancels the loads still running.
//      (`async let` would also run them at once, but awaits them in the order
//      they are written: a failing badge load would go unnoticed while the
//      profile is still loading.)

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

  /// One finished load: the group's children return different types.
  private enum Part: Sendable {
    case profile(Profile)
    case feed([FeedItem])
    case badges([Badge])
  }

  /// Loads everything and publishes it. Throws the first load's error.
  ///
  /// The screen calls it from a task it owns (SwiftUI's `.task` modifier)
  /// and cancels that task when the screen goes away.
  func refresh() async throws {
    let service = self.service
    do {
      let dashboard = try await withThrowingTaskGroup(of: Part.self) { group in
        group.addTask { .profile(try await service.loadProfile()) }
        group.addTask { .feed(try await service.loadFeed()) }
        group.addTask { .badges(try await service.loadBadges()) }

        var profile: Profile?
        var feed: [FeedItem]?
        var badges: [Badge]?
        // The first error thrown here leaves the scope and cancels the rest.
        while let part = try await group.next() {
          switch part {
          case .profile(let value): profile = value
          case .feed(let value): feed = value
          case .badges(let value): badges = value
          }
        }
        return Dashboard(profile: profile!, feed: feed!, badges: badges!)
      }
      // Cancelled after the loads finished? Then the screen is gone: show nothing.
      try Task.checkCancellation()
      self.dashboard = dashboard
    } catch {
      // The caller hears about every error; the banner only about real ones.
      if !(error is CancellationError) { lastError = error }
      throw error
    }
  }
}
