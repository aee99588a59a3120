// Chapter 07: Cancellable bridges (reference solution)
//
// Goal: `UserClient.loadUser(id:)` bridges the SDK's callback API into
// `async throws` and passes cancellation down: a cancelled caller throws
// `CancellationError` at once and the SDK operation is cancelled, exactly once;
// a callback that arrives after that is ignored; whatever the order of
// callback and cancel, the continuation is resumed exactly once.
//
// The fix: `withTaskCancellationHandler` around the continuation, and one
// small state machine behind a `Mutex` that both sides go through. The
// callback and the cancel handler race to finish it; whoever comes first takes
// the continuation (and the operation, to cancel it), everyone later finds
// nothing to do. Continuations are resumed and operations cancelled only
// after the lock is released.

import Synchronization

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
    let bridge = Bridge<User>()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // Cancelled before we got here: resumed already, do not start the SDK.
        guard bridge.install(continuation) else { return }
        let operation = sdk.fetchUser(id: id) { result in bridge.finish(with: result) }
        bridge.attach(operation)
      }
    } onCancel: {
      bridge.cancel()
    }
  }
}

/// The one-shot state shared by the caller, the SDK callback and the cancel handler.
final class Bridge<Value: Sendable>: Sendable {
  private enum State {
    case waiting
    case running(CheckedContinuation<Value, any Error>, (any SDKOperation)?)
    case cancelled
    case finished
  }

  private let state = Mutex<State>(.waiting)

  /// Stores the continuation; returns false (after resuming it with
  /// `CancellationError`) if the task was cancelled already.
  func install(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
    let installed = state.withLock { state -> Bool in
      guard case .waiting = state else { return false }
      state = .running(continuation, nil)
      return true
    }
    if !installed { continuation.resume(throwing: CancellationError()) }
    return installed
  }

  /// Remembers the SDK operation, or cancels it if the caller is gone already.
  func attach(_ operation: any SDKOperation) {
    let cancelNow = state.withLock { state -> Bool in
      switch state {
      case .running(let continuation, nil):
        state = .running(continuation, operation)
        return false
      case .cancelled:
        return true
      default:
        return false  // Finished already (a synchronous callback): nothing to cancel.
      }
    }
    if cancelNow { operation.cancel() }
  }

  /// The SDK's callback: resumes the caller unless someone else finished first.
  func finish(with result: Result<Value, any Error>) {
    let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
      guard case .running(let continuation, _) = state else { return nil }
      state = .finished
      return continuation
    }
    continuation?.resume(with: result)
  }

  /// The cancel handler: resumes the caller with `CancellationError` and
  /// cancels the SDK operation, unless the callback finished first.
  func cancel() {
    let taken = state.withLock { state -> (CheckedContinuation<Value, any Error>, (any SDKOperation)?)? in
      switch state {
      case .waiting:
        state = .cancelled
        return nil
      case .running(let continuation, let operation):
        // Keep `.cancelled` while no operation is attached yet, so that
        // `attach` cancels it when it arrives.
        state = operation == nil ? .cancelled : .finished
        return (continuation, operation)
      case .cancelled, .finished:
        return nil
      }
    }
    guard let (continuation, operation) = taken else { return }
    continuation.resume(throwing: CancellationError())
    operation?.cancel()
  }
}
