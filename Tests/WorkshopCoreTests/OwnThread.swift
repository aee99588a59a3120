import ConcurrencyTestKit
import Testing

/// Runs each test it is applied to on a thread of its own, instead of on
/// Swift concurrency's shared pool.
///
/// The runner's API is synchronous: grading a fixture, building a package or
/// running `workshop` blocks the calling thread until its processes end. On
/// the shared pool, which has one thread per core, two such tests on a
/// two-core machine leave none for the other two hundred, which wait without
/// using the CPU. A test that blocks for seconds takes this trait; its body
/// runs on a ``ThreadExecutor`` (SE-0417's task executor preference, which
/// its child tasks inherit), and the pool stays free for the rest.
///
///     @Suite("End to end on a fixture workshop", .serialized, .ownThread)
///     struct EndToEndTests { … }
///
/// On a suite it applies to each of its tests.
struct OwnThread: TestTrait, SuiteTrait, TestScoping {
  var isRecursive: Bool { true }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let thread = ThreadExecutor(name: test.displayName ?? test.name)
    defer { thread.shutDown() }
    try await withTaskExecutorPreference(thread) { try await function() }
  }
}

extension Trait where Self == OwnThread {
  /// Runs the test, or each test of the suite, on a thread of its own (see ``OwnThread``).
  static var ownThread: Self { OwnThread() }
}

/// Starts `work`, which blocks until it is done, on a thread of its own; its
/// value is awaited like any task's. For work a suite's tests share (a fixture
/// graded once), which would otherwise hold a thread of the shared pool for
/// as long as it takes (see ``OwnThread``).
func blockingTask<Value: Sendable>(
  _ name: String, _ work: @escaping @Sendable () throws -> Value
) -> Task<Value, any Error> {
  let thread = ThreadExecutor(name: name)
  return Task(executorPreference: thread) {
    defer { thread.shutDown() }
    return try work()
  }
}
