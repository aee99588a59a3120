import Foundation
import Synchronization

/// The error a kit wait throws when its real-time bound runs out.
struct WaitTimedOut: Error {}

/// State behind a lock that tasks can wait on until it satisfies a condition.
///
/// Every mutation goes through ``update(_:)``; waiters whose condition became
/// true are removed under the lock and resumed only after the lock is released,
/// so no continuation ever runs while the lock is held.
final class WaitableState<State: Sendable>: Sendable {
  private struct Waiter: Sendable {
    var isSatisfied: @Sendable (State) -> Bool
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct Storage: Sendable {
    var state: State
    var waiters: [Int: Waiter] = [:]
    /// Waits that were ended (timed out, cancelled) before they were stored.
    var endedEarly: [Int: any Error] = [:]
    /// Waits that have begun and not yet finished; a late timer or cancel for
    /// any other id is ignored.
    var live: Set<Int> = []
    var nextWaiterID = 0
  }

  private let storage: Mutex<Storage>

  init(_ state: State) {
    storage = Mutex(Storage(state: state))
  }

  /// A snapshot of the current state.
  var current: State {
    storage.withLock { $0.state }
  }

  /// Mutates the state, then wakes every waiter that the new state satisfies.
  @discardableResult
  func update<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
    let (result, ready) = storage.withLock { storage in
      let result = body(&storage.state)
      var ready: [CheckedContinuation<Void, any Error>] = []
      for (id, waiter) in storage.waiters where waiter.isSatisfied(storage.state) {
        ready.append(waiter.continuation)
        storage.waiters[id] = nil
      }
      return (result, ready)
    }
    for continuation in ready { continuation.resume() }
    return result
  }

  /// Suspends until `isSatisfied` holds for the state.
  ///
  /// `isSatisfied` runs under the lock: it must only look at the state it is
  /// given, never at another lock-protected object.
  ///
  /// Throws `WaitTimedOut` after `limit` of real time, and `CancellationError`
  /// when the waiting task is cancelled.
  func wait(
    until isSatisfied: @escaping @Sendable (State) -> Bool,
    limit: Duration = hangBound
  ) async throws {
    let id = storage.withLock { storage in
      defer { storage.nextWaiterID += 1 }
      storage.live.insert(storage.nextWaiterID)
      return storage.nextWaiterID
    }
    defer {
      storage.withLock { storage in
        storage.live.remove(id)
        storage.endedEarly[id] = nil
      }
      Pulse.beat()  // In the waiting task: a check moved on.
    }
    let timer = Task {
      do {
        try await Task.sleep(for: limit)  // Real time, used only as the hang bound.
        self.endWait(id, with: WaitTimedOut())
      } catch {
        // Cancelled: the wait finished in time.
      }
    }
    defer { timer.cancel() }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Bool, any Error> = storage.withLock { storage in
          if let error = storage.endedEarly.removeValue(forKey: id) { return .failure(error) }
          if isSatisfied(storage.state) { return .success(true) }
          storage.waiters[id] = Waiter(isSatisfied: isSatisfied, continuation: continuation)
          return .success(false)
        }
        switch outcome {
        case .success(true): continuation.resume()
        case .success(false): break
        case .failure(let error): continuation.resume(throwing: error)
        }
      }
    } onCancel: {
      endWait(id, with: CancellationError())
    }
  }

  /// Ends one wait with an error, or leaves a marker if it is not stored yet.
  private func endWait(_ id: Int, with error: any Error) {
    let waiter = storage.withLock { storage -> Waiter? in
      guard storage.live.contains(id) else { return nil }  // Finished already.
      if let waiter = storage.waiters.removeValue(forKey: id) { return waiter }
      storage.endedEarly[id] = error
      return nil
    }
    waiter?.continuation.resume(throwing: error)
  }
}
