// Chapter 02: Task groups (exercise 4 of 4, reference solution)
//
// Goal: `withDeadline(_:on:operation:)` runs `operation` and gives up once
// `limit` has passed on `clock`: it returns the operation's value, or throws
// its error, when the operation ends first, and throws `DeadlineExceeded`
// when the deadline comes first. Either way the loser is cancelled, and has
// ended, before `withDeadline` returns. Time comes from `clock`, never from
// `Task.sleep`, so a test can move it.
//
// The fix: the first child to finish decides, and `group.cancelAll()` stops
// the other before the closure returns or throws. The group still waits for
// the loser to end (that is what makes it structured): an operation that
// ignores cancellation delays the error until it ends, and nothing it does
// outlives the call. The timer child returns `nil`, which tells a deadline
// from a value without a second type.

/// Thrown by `withDeadline` when the deadline passed before the operation ended.
struct DeadlineExceeded: Error, Equatable {}

/// Runs `operation`, giving up once `limit` has passed on `clock`.
func withDeadline<C: Clock, Value: Sendable>(
  _ limit: C.Duration, on clock: C, operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  try await withThrowingTaskGroup(of: Value?.self) { group in
    group.addTask { try await operation() }
    group.addTask {
      try await clock.sleep(for: limit)
      return nil
    }
    // Whoever finishes first, the other is cancelled before we leave. An
    // error from the operation (or a cancelled caller) is thrown from
    // `next()`, and the group cancels the timer on the way out.
    let first = try await group.next() ?? nil
    group.cancelAll()
    guard let value = first else { throw DeadlineExceeded() }
    return value
  }
}
