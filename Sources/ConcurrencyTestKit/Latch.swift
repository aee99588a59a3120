import Synchronization

/// A one-way door: tasks wait at it until someone opens it, once, from a
/// task or a thread.
///
/// Waiting parks the task on a continuation, which, unlike awaiting a task's
/// value, leaves every task's priority alone. Checks use it to start a task
/// only once the fakes know it, and to learn that a task has ended without
/// escalating it:
///
///     let finished = Latch()
///     let screen = Task(priority: .low) {
///       await model.open(photo)
///       finished.open()
///     }
///     try await events.withinTimeLimit("open(_:)") { await finished.wait() }
///
/// `wait()` has no time limit of its own: wrap it in
/// ``EventLog/withinTimeLimit(_:sourceLocation:_:)`` where the door might
/// never open.
public final class Latch: Sendable {
  private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  public init() {}

  /// Opens the door and lets every waiting task go on; later waits return at once.
  public func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Suspends until the door is open.
  public func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }
}
