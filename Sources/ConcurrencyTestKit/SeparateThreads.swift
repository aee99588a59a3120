import Foundation
import SanitizerSupport
import Synchronization
import Testing

/// Runs closures on threads of their own, released at the same moment, for
/// checks that ThreadSanitizer grades.
///
/// ThreadSanitizer reports two accesses to the same memory as a race when
/// nothing orders them, whichever comes first in time; but anything both
/// threads lock in between orders them and hides the race. A thread that
/// starts late takes Foundation's thread bookkeeping lock after an earlier
/// thread released it on exit, for example. So every thread here first
/// starts and parks; only when all of them have arrived are they released
/// together, and nothing the kit does orders their closures after that.
/// The closures must not take a shared lock before the access under test
/// either: record events before the threads start, not in the closures.
/// Nor loop over an array there: with Swift 6.3's ThreadSanitizer on Linux,
/// a `for` loop over an array on one thread before its call hid chapter 11's
/// unlocked flag in 120 rounds of 120, while the same calls written out were
/// reported in 20 of 20 (a loop over a range hides nothing).
///
/// A check graded by ThreadSanitizer plays its scenario ``rounds`` times,
/// each time with the two sides on two threads released together:
///
///     let counter = HitCounter()  // The code under test.
///     for _ in 1...SeparateThreads.rounds {
///       await SeparateThreads.run([
///         { counter.add() },  // One caller on its thread...
///         { counter.add() },  // ...as another calls on a second one.
///       ])
///     }
///     #expect(counter.total == 2 * SeparateThreads.rounds)
///     // Under ThreadSanitizer (the race pass), a count kept without a lock
///     // is reported here even in a round where no update was lost.
///
/// A mistake that shows only when the two sides overlap, with no data race
/// for ThreadSanitizer to see, needs the overlap proven instead:
/// ``playOverlapping(_:callsPerThread:minimumRounds:events:sourceLocation:_:)``.
public enum SeparateThreads {
  /// How many times a race check plays its scenario. ThreadSanitizer's
  /// verdict follows from how the threads synchronise, not from timing, but
  /// in practice a single round misses now and then, far more often on a
  /// loaded machine: chapter 08's unlocked-state fix went unreported in 1 of
  /// 30 runs of five rounds alone and in 4 of 30 with three runs at once,
  /// and in none of 90 runs with three at once at twenty rounds.
  public static let rounds = 20

  /// Whether the checks run under ThreadSanitizer (the runner's race pass).
  public static let underThreadSanitizer = workshop_sanitizer_checks_threads() != 0

  /// Runs each closure on a thread of its own, releases them together once
  /// all are ready, and calls `done` (on one of them) when every closure
  /// returned. The threads are the kit's parked ones (``ParkedThreads``),
  /// each on a core of its own where the platform allows.
  public static func start(
    _ bodies: [@Sendable () -> Void], whenAllReturned done: @escaping @Sendable () -> Void = {}
  ) {
    let starting = StartingLine(parties: bodies.count)
    let ending = Rendezvous(parties: bodies.count)
    let finished = DispatchGroup()
    for (place, body) in bodies.enumerated() {
      finished.enter()
      ParkedThreads.run(
        onCore: place,
        {
          starting.arriveAndWait()
          body()
          // No thread moves on before every closure has returned: what a
          // thread does next (park, end) can order what it did before the
          // others' accesses.
          ending.arriveAndWait()
        }, thenOnceParked: { finished.leave() })
    }
    finished.notify(queue: .global(), execute: done)
  }

  /// Runs `first` on one thread and, once it has returned, `second` on
  /// another, with nothing between the two that ThreadSanitizer counts as
  /// ordering them: the second thread waits for the first on a relaxed
  /// atomic flag, which orders nothing.
  ///
  /// Released together, two threads meet in whatever order the scheduler
  /// picks, and the order decides more than it seems: a lock inside the
  /// runtime (an `AsyncStream`'s storage, a task's status) that both sides
  /// take orders their accesses for ThreadSanitizer in one order and not in
  /// the other. Chapter 11's flag shared without a lock by the provider's
  /// thread and the screen's went unreported whenever the provider's thread
  /// came first. Play both orders, each decided:
  ///
  ///     await SeparateThreads.inTurn({ screen.cancel() }, then: { _ = delegate.provider(didUpdate: home) })
  ///     await SeparateThreads.inTurn({ _ = delegate.provider(didUpdate: home) }, then: { screen.cancel() })
  ///
  /// If `first` does not return within the hang bound, `second` runs
  /// anyway; the call itself returns only once both have (a check that may
  /// hang wraps it in its log's `withinTimeLimit`).
  public static func inTurn(
    _ first: @escaping @Sendable () -> Void, then second: @escaping @Sendable () -> Void
  ) async {
    let done = Atomic(false)
    let bound = hangBound  // Read in the task: the threads see none of its task-local values.
    await run([
      {
        first()
        done.store(true, ordering: .relaxed)
      },
      {
        let deadline = ContinuousClock.now + bound
        while !done.load(ordering: .relaxed) && ContinuousClock.now < deadline { sched_yield() }
        second()
      },
    ])
  }

  /// Runs every closure on a thread of its own, all released at once, and
  /// returns when each has returned.
  public static func run(_ bodies: [@Sendable () -> Void]) async {
    await withCheckedContinuation { continuation in
      start(bodies) { continuation.resume() }
    }
    Pulse.beat()  // Back in the check's task: a round was played.
  }

  /// Runs every closure in a task of its own, each on a thread of its own
  /// (a `ThreadExecutor` it prefers, SE-0417), all released at the same
  /// moment once every thread has started; returns when each has returned.
  ///
  /// For async code under test that two threads must enter at once:
  ///
  ///     let stats = DownloadStats()
  ///     await SeparateThreads.runTasks(
  ///       (0..<SeparateThreads.overlapThreads).map { _ in
  ///         { _ = await stats.recordFinished() }
  ///       })
  ///     // A read-modify-write split over two lock acquisitions loses updates here.
  ///
  /// A body that suspends resumes on its own thread again; what it awaits
  /// (an actor, the main actor) runs where it always does.
  public static func runTasks(_ bodies: [@Sendable () async -> Void]) async {
    let starting = StartingLine(parties: bodies.count)
    let threads = bodies.indices.map { ThreadExecutor(name: "separate thread \($0 + 1)") }
    defer { for thread in threads { thread.shutDown() } }
    let tasks = zip(bodies, threads).enumerated().map { place, pair in
      let (body, thread) = pair
      return Task(executorPreference: thread) {
        ParkedThreads.pinCurrentThread(toCore: place)
        starting.arriveAndWait()
        await body()
      }
    }
    for task in tasks { await task.value }
    Pulse.beat()
  }

  /// Parks threads until `parties` of them have arrived.
  private final class Rendezvous: @unchecked Sendable {
    // Guarded by `condition`.
    private var arrived = 0
    private let parties: Int
    private let condition = NSCondition()

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
      condition.lock()
      arrived += 1
      if arrived == parties {
        condition.broadcast()
      } else {
        while arrived < parties { condition.wait() }
      }
      condition.unlock()
    }
  }
}
