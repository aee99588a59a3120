import Foundation
import Testing

/// How long any wait of the kit lasts before it gives up and fails the check.
///
/// Correct code never needs anywhere near this long: every step a check waits
/// for is a handful of scheduler hops. The bound only matters when the code
/// under test is wrong (a continuation nobody resumes, a call that never
/// comes), and it decides how soon such a check fails instead of hanging.
///
/// It is 1 second unless something says otherwise, innermost first:
/// - the ``HangBoundTrait`` of the test or of a suite around it,
///   `.hangBound(.seconds(3))`;
/// - `WORKSHOP_HANG_BOUND`, in seconds, for the whole test process: the
///   runner sets 5 for its pass under ThreadSanitizer, which slows code
///   down that much, and you may set it on a machine far slower than a
///   laptop.
///
/// Read it in a task: threads the kit starts for you
/// (``SeparateThreads``) see the process's bound, not a trait's. A check
/// that waits in a way of its own waits no longer than this:
///
///     let deadline = ContinuousClock.now + hangBound
///     while !delivered.isSet {
///       guard ContinuousClock.now < deadline else {
///         try events.stop("The update arrives within \(hangBound)", actual: "it never did")
///       }
///       await Task.yield()
///     }
public var hangBound: Duration { HangBoundTrait.current ?? HangBoundTrait.processDefault }

/// Gives the tests it is applied to a hang bound of their own
/// (``hangBound``), for checks whose scenario is slow by nature.
///
/// Applied to a suite, it holds for every test in it; a test's own trait
/// wins over its suite's.
///
///     @Suite(.hangBound(.seconds(3)))
///     struct ImageCacheTests {
///       @Test("A decode that never finishes fails the check after 3 s")
///       func hangingDecode() async throws {
///         let events = EventLog()
///         try await events.withinTimeLimit("decoding") {  // Gives up after 3 s.
///           _ = try await cache.image(for: stalledURL)
///         }
///       }
///
///       @Test("A cached image comes back at once", .hangBound(.milliseconds(200)))
///       func cachedImage() async throws { ... }  // Gives up after 200 ms.
///     }
///
/// The bound is a task-local value: it holds in the test's task and in the
/// tasks it starts, but not in an exit test's child process, which reads
/// `WORKSHOP_HANG_BOUND` only.
public struct HangBoundTrait: TestTrait, SuiteTrait, TestScoping {
  /// The bound the tests get.
  public var bound: Duration

  /// A suite's bound holds for the tests inside it.
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await Self.$current.withValue(bound, operation: function)
  }

  /// The bound of the innermost trait around the current task, if any.
  @TaskLocal static var current: Duration?

  /// The bound with no trait: `WORKSHOP_HANG_BOUND` seconds, or 1 second.
  static let processDefault: Duration = {
    let text = ProcessInfo.processInfo.environment["WORKSHOP_HANG_BOUND"] ?? ""
    guard let seconds = Double(text), seconds > 0 else { return .seconds(1) }
    return .milliseconds(Int(seconds * 1000))
  }()
}

extension Trait where Self == HangBoundTrait {
  /// Gives the test, or every test in the suite, `bound` as its
  /// ``hangBound``: see ``HangBoundTrait``.
  public static func hangBound(_ bound: Duration) -> Self { HangBoundTrait(bound: bound) }
}
