import Foundation
import SanitizerSupport
import Synchronization

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
public enum SeparateThreads {
  /// How many times a race check plays its scenario. ThreadSanitizer's
  /// verdict follows from how the threads synchronise, not from timing, but
  /// in practice a single round misses now and then, far more often on a
  /// loaded machine: chapter 08's unlocked-state fix went unreported in 1 of
  /// 30 runs of five rounds alone and in 4 of 30 with three runs at once,
  /// and in none of 90 runs with three at once at twenty rounds.
  public static let rounds = 20

  /// How many threads a check releases at once when the mistake it looks
  /// for shows only while two operations overlap, and nothing in the
  /// learner's code gives the check a point to hold one side at: a
  /// check-then-set split over two lock acquisitions, a read-modify-write in
  /// two critical sections, an atomic load followed by a separate store. Such
  /// code is free of data races, so ThreadSanitizer stays silent; only a
  /// second thread arriving inside the window shows it, by a double resume
  /// or a lost update. Many threads contending for the same lock make the
  /// window as wide as a futex wake-up, and `overlapRounds` repeats it.
  public static let overlapThreads = 16

  /// How many times such a check plays its scenario: 1,000 in a plain build,
  /// `rounds` under ThreadSanitizer, whose verdict needs no overlap.
  ///
  /// Measured on 2 cores with `stress-ng --cpu 2` loading both (chapter 06's
  /// check-then-set in two `withLock` calls, 100 runs of the check each):
  /// 2 callbacks × 20 rounds caught it in 0 of 10 runs unloaded; 8 × 200 in 7
  /// of 10; 8 × 2,000 in 96 of 100 under load; 16 × 1,000 in 100 of 100 under
  /// load, in 1.5 s for a right fix.
  public static var overlapRounds: Int { underThreadSanitizer ? rounds : 1000 }

  /// Whether the checks run under ThreadSanitizer (the runner's race pass).
  public static let underThreadSanitizer = workshop_sanitizer_checks_threads() != 0

  /// Starts one thread per closure, releases them together once all have
  /// started, and calls `done` (on one of them) when every closure returned.
  public static func start(
    _ bodies: [@Sendable () -> Void], whenAllReturned done: @escaping @Sendable () -> Void = {}
  ) {
    let starting = Rendezvous(parties: bodies.count)
    let ending = Rendezvous(parties: bodies.count)
    let finished = DispatchGroup()
    for body in bodies {
      finished.enter()
      Thread.detachNewThread {
        starting.arriveAndWait()
        body()
        // No thread ends before every closure has returned: a thread's end
        // can order what it did before the others' accesses.
        ending.arriveAndWait()
        finished.leave()
      }
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
  /// If `first` does not return within the hang bound, `second` runs anyway.
  public static func inTurn(
    _ first: @escaping @Sendable () -> Void, then second: @escaping @Sendable () -> Void
  ) async {
    let done = Atomic(false)
    await run([
      {
        first()
        done.store(true, ordering: .relaxed)
      },
      {
        let deadline = ContinuousClock.now + hangBound
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
    let starting = Rendezvous(parties: bodies.count)
    let threads = bodies.indices.map { ThreadExecutor(name: "separate thread \($0 + 1)") }
    defer { for thread in threads { thread.shutDown() } }
    let tasks = zip(bodies, threads).map { body, thread in
      Task(executorPreference: thread) {
        starting.arriveAndWait()
        await body()
      }
    }
    for task in tasks { await task.value }
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

/// A task executor with a thread of its own: the jobs of the tasks that
/// prefer it (SE-0417) run there, one at a time, in the order they come.
///
///     let thread = ThreadExecutor(name: "SDK thread")
///     defer { thread.shutDown() }
///     let value = await Task(executorPreference: thread) { await stats.recordFinished() }.value
///
/// The thread ends once `shutDown()` is called and its last job has run.
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []  // Guarded by `condition`.
  private var shuttingDown = false  // Guarded by `condition`.

  /// Starts the thread, named `name` in debuggers and crash logs.
  public init(name: String) {
    let thread = Thread { [self] in runJobs() }
    thread.name = name
    thread.start()
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// Lets the thread end once it has run the jobs it has.
  public func shutDown() {
    condition.lock()
    shuttingDown = true
    condition.signal()
    condition.unlock()
  }

  private func runJobs() {
    while true {
      condition.lock()
      while jobs.isEmpty && !shuttingDown { condition.wait() }
      guard !jobs.isEmpty else {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
