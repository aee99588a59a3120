// Chapter 02: Task groups (exercise 4 of 4)
//
// Goal: `withDeadline(_:on:operation:)` runs `operation` and gives up once
// `limit` has passed on `clock`: it returns the operation's value, or throws
// its error, when the operation ends first, and throws `DeadlineExceeded`
// when the deadline comes first. Either way the loser is cancelled, and has
// ended, before `withDeadline` returns. Time comes from `clock`, never from
// `Task.sleep`, so a test can move it.
//
// Run `swift run workshop check 02` to see which behaviours still fail.

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
    // TODO: The first child to finish wins, but the other one keeps running:
    // leaving this closure waits for it. A value waits for the deadline, and
    // a deadline waits for the operation, which may never end.
    while let result = try await group.next() {
      if let value = result { return value }
    }
    throw DeadlineExceeded()
  }
}
