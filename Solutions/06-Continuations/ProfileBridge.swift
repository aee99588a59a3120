// Chapter 06: Continuations, exactly once (reference solution)
//
// Goal: `ProfileClient.profile(id:)` turns the legacy SDK's callback into
// `async throws`, and resumes its continuation exactly once, whatever the SDK
// does: a value, an error, both, neither, or calling back twice.
//
// The fixes:
//   1. Every callback is first turned into exactly one `Result`: the error wins
//      over a value, and "neither" becomes `BridgeError.noResult`, so the
//      continuation is always resumed and never twice for one callback.
//   2. A `ResumeOnce` box hands the continuation out once, under a lock; a
//      second callback, from any thread, finds the box empty and is ignored.

import Synchronization

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
      // Fix 2: the continuation lives in a box that gives it out only once.
      let once = ResumeOnce(continuation)
      sdk.fetchProfile(id: id) { profile, error in
        // Fix 1: decide one outcome per callback. The error wins; neither is
        // an error of its own instead of a task that waits forever.
        let result: Result<Profile, any Error>
        if let error {
          result = .failure(error)
        } else if let profile {
          result = .success(profile)
        } else {
          result = .failure(BridgeError.noResult)
        }
        once.resume(with: result)
      }
    }
  }
}

/// Resumes a continuation on the first call and ignores every later one.
final class ResumeOnce<Value: Sendable>: Sendable {
  private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

  init(_ continuation: CheckedContinuation<Value, any Error>) {
    self.continuation = Mutex(continuation)
  }

  /// Resumes with `result` if nobody has yet; returns whether this call did.
  @discardableResult
  func resume(with result: Result<Value, any Error>) -> Bool {
    // Take the continuation out under the lock, resume it after releasing the
    // lock: resuming never runs while the lock is held.
    let taken = continuation.withLock { stored in
      defer { stored = nil }
      return stored
    }
    taken?.resume(with: result)
    return taken != nil
  }
}
