// Chapter 07: Cancellable bridges
//
// Goal: `UserClient.loadUser(id:)` bridges the SDK's callback API into
// `async throws` and passes cancellation down: a cancelled caller throws
// `CancellationError` at once and the SDK operation is cancelled, exactly once;
// a callback that arrives after that is ignored; whatever the order of
// callback and cancel, the continuation is resumed exactly once.
//
// Run `swift run workshop check 07` to see which behaviours still fail.

/// A user of the app.
struct User: Equatable, Sendable, CustomStringConvertible {
  var id: String
  var name: String
  var description: String { "User(\(id), \(name))" }
}

/// A request the SDK is running; `cancel()` asks it to stop.
protocol SDKOperation: Sendable {
  func cancel()
}

/// The legacy SDK. It calls `completion` once, on a thread of its choosing,
/// possibly even after it was cancelled, and possibly before `fetchUser` returns.
protocol UserSDK: Sendable {
  func fetchUser(
    id: String, completion: @escaping @Sendable (Result<User, any Error>) -> Void
  ) -> any SDKOperation
}

/// The async face of the SDK that the rest of the app uses.
struct UserClient: Sendable {
  let sdk: any UserSDK

  /// Loads the user `id`.
  func loadUser(id: String) async throws -> User {
    let guardFlag = CompletionFlag()
    // TODO: Nothing here hears about cancellation. A cancelled caller waits
    // until the SDK calls back, and the SDK operation keeps running.
    return try await withCheckedThrowingContinuation { continuation in
      _ = sdk.fetchUser(id: id) { result in
        // TODO: A plain Bool, read and written from any thread without a lock.
        guard !guardFlag.done else { return }
        guardFlag.done = true
        continuation.resume(with: result)
      }
    }
  }
}

/// Remembers whether the continuation was resumed.
final class CompletionFlag: @unchecked Sendable {
  var done = false
}
