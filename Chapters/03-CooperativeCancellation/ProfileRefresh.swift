// Chapter 03: Cooperative cancellation (exercise 2 of 2)
//
// Goal: a refresh that was cancelled leaves no trace: no cache write, no
// analytics event, no state change. Cancellation is never shown to the user or
// counted as an error; real errors are. The legacy SDK's own "cancelled" error
// counts as cancellation too.

/// The signed-in user's profile.
struct Profile: Equatable, Sendable, CustomStringConvertible {
  var name: String
  var description: String { "Profile(\(name))" }
}

/// Errors of the legacy networking SDK.
enum LegacySDKError: Error, Equatable {
  /// The SDK cancelled the request itself (the app went to the background, say).
  case cancelled
  case timedOut
}

/// The profile endpoint, through the legacy SDK.
protocol ProfileAPI: Sendable {
  func fetchProfile() async throws -> Profile
}

/// The on-disk cache of the profile.
protocol ProfileCache: Sendable {
  func store(_ profile: Profile)
}

/// Product analytics.
protocol Analytics: Sendable {
  func track(_ event: String)
}

/// Loads the profile and speaks Swift's language for cancellation.
struct ProfileLoader: Sendable {
  let api: any ProfileAPI

  /// The profile; throws `CancellationError` whenever the load was cancelled.
  func load() async throws -> Profile {
    // TODO: The SDK reports its own cancellations as `LegacySDKError.cancelled`.
    // Callers only know `CancellationError`.
    try await api.fetchProfile()
  }
}

/// The state behind the profile screen, with the refresh's side effects.
@MainActor
final class ProfileRefresher {
  enum State: Equatable {
    case idle
    case loaded(Profile)
    case failed(String)
  }

  private(set) var state: State = .idle
  private let loader: ProfileLoader
  private let cache: any ProfileCache
  private let analytics: any Analytics

  init(api: any ProfileAPI, cache: any ProfileCache, analytics: any Analytics) {
    self.loader = ProfileLoader(api: api)
    self.cache = cache
    self.analytics = analytics
  }

  /// Fetches the profile, caches it, tracks the refresh and shows the profile.
  func refresh() async {
    do {
      let profile = try await loader.load()
      // TODO: The task may have been cancelled while it waited for the
      // network. Should a cancelled refresh still write all of this?
      cache.store(profile)
      analytics.track("profile_refreshed")
      state = .loaded(profile)
    } catch {
      // TODO: Is every error a failure the user should see and a metric
      // should count?
      analytics.track("profile_refresh_failed")
      state = .failed("Could not refresh: \(error)")
    }
  }
}
