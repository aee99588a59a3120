// Chapter 06: Continuations, exactly once
//
// Goal: `ProfileClient.profile(id:)` turns the legacy SDK's callback into
// `async throws`, and resumes its continuation exactly once, whatever the SDK
// does: a value, an error, both, neither, or calling back twice.
//
// Run `swift run workshop check 06` to see which behaviours still fail.

/// A user profile, as the SDK returns it.
struct Profile: Equatable, Sendable, CustomStringConvertible {
  var id: String
  var name: String
  var description: String { "Profile(\(id), \(name))" }
}

/// The legacy SDK we cannot change: it reports through a completion handler.
///
/// Its documentation promises "exactly one of profile or error is non-nil, and
/// the completion is called once". Real SDKs break both promises.
protocol LegacyProfileSDK: Sendable {
  func fetchProfile(id: String, completion: @escaping @Sendable (Profile?, (any Error)?) -> Void)
}

/// Errors the bridge itself reports.
enum BridgeError: Error, Equatable {
  /// The SDK called back with neither a profile nor an error.
  case noResult
}

/// The async face of the legacy SDK that the rest of the app uses.
struct ProfileClient: Sendable {
  let sdk: any LegacyProfileSDK

  /// Fetches the profile for `id`.
  func profile(id: String) async throws -> Profile {
    try await withCheckedThrowingContinuation { continuation in
      sdk.fetchProfile(id: id) { profile, error in
        // TODO: The SDK may call this closure more than once, from any thread.
        // A continuation must be resumed exactly once.
        if let error {
          continuation.resume(throwing: error)
        }
        // TODO: What if the SDK sends both a profile and an error? Or neither?
        if let profile {
          continuation.resume(returning: profile)
        }
      }
    }
  }
}
