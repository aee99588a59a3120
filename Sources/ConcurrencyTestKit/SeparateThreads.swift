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
  /// or a lost update. See ``playOverlapping(_:callsPerThread:minimumRounds:events:sourceLocation:_:)``.
  ///
  /// Two, because more threads than cores take turns instead of meeting:
  /// released by a spinning barrier on 2 cores, an atomic load-then-store
  /// guard let two of 2 threads through in 3.4 % of rounds under
  /// `stress-ng --cpu 2`, two of 16 in 0.3 %.
  public static let overlapThreads = 2

  /// How many times the kit's own two-step code must lose an update, in
  /// the rounds between a check's rounds, before the check may
  /// pass: the proof that the threads met within a few instructions of each
  /// other often enough, on this machine and at this moment, for the
  /// learner's two-step mistake to have shown.
  ///
  /// The kit's code reads a `Mutex` in one `withLock` and writes it in
  /// another, the shape of the commonest learner mistake, and the check's
  /// rounds play as many times as the kit's: if each of the kit's rounds
  /// lets two threads through with a chance p, and the learner's two-step
  /// code at least as often, the learner's rounds show it 5 times on
  /// average, and the chance they never do is below e⁻⁵ (1 in 150). In
  /// practice the learners' two-step code shows far sooner than the kit's:
  /// under `stress-ng --cpu 2`, chapter 06's check-then-set in two locks
  /// was caught in 20 runs of 20 (0.1 to 1.2 s each), chapter 12's
  /// increment in two locks, number read after unlock, atomic load then
  /// store, and concurrent queue without a barrier each in 10 of 10.
  public static let requiredMeetings = 5

  /// The fewest rounds an overlap check plays, however soon the threads met.
  public static let minimumOverlapRounds = 100

  /// How long an overlap check may keep playing before it gives up:
  /// 12 times the hang bound (12 s by default), within the 15 s the runner
  /// gives one check. On 2 cores, unloaded, the 100 rounds a check plays at
  /// least take 0.1 s in chapters 06, 11 and 12, and the kit's code lost
  /// updates 10 to 24 times in them. With both cores loaded by
  /// `stress-ng --cpu 2`, right fixes of chapter 06 passed 30 runs of 30
  /// (1 to 9.5 s) and of chapter 12 (20 tries a thread) 30 of 30 (1.1 to
  /// 5.5 s); chapter 11's rounds cost more, and a right fix ran out of time
  /// in 2 runs of 6 there. A check that runs out of time fails with that
  /// reason; it never passes blind.
  public static var overlapTimeLimit: Duration { hangBound * 12 }

  /// Plays an overlap check's scenario, `round(1)`, `round(2)`, …, until the
  /// threads have been seen to meet often enough to decide it.
  ///
  /// Whether a check-then-set split over two lock acquisitions lets two
  /// threads through depends on both reaching it within a few instructions
  /// of each other, and how often that happens depends on the machine and
  /// its load: a fixed number of rounds that catches it every time on one
  /// machine catches it in one run of three on another. So after each of the
  /// check's rounds the kit releases `overlapThreads` threads the same way
  /// into code of its own that is wrong in exactly that way (a count read
  /// in one critical section and written in another), and counts the
  /// rounds where it lost an update. A check whose threads each call the
  /// learner's code several times a round says so (`callsPerThread`), and
  /// the kit's threads make as many tries each, so both give the threads
  /// the same chances to meet. The check passes only once the kit's code
  /// failed `requiredMeetings` times and `minimumRounds` rounds
  /// (`minimumOverlapRounds` unless the check needs more, because its
  /// learner's window is narrower than the kit's) passed with no failure:
  /// a pass says how much overlap it saw. If the threads
  /// have not met often enough within `overlapTimeLimit`, the check fails
  /// with that reason instead of passing blind.
  ///
  /// Under ThreadSanitizer, whose verdict follows from how the threads
  /// synchronise and needs no overlap, it plays `rounds` rounds and none of
  /// the kit's own code (whose lock would order the threads).
  ///
  ///     try await SeparateThreads.playOverlapping("the two callbacks", events: events) { round in
  ///       let outcome = try await fetch(callbacks, delivery: .racingOnSeparateThreads)
  ///       try events.require(outcome != nil, "One callback decides the result")
  ///     }
  ///
  /// `round` stops the check by throwing, usually through the log's
  /// `require` or `stop`.
  public static func playOverlapping(
    _ what: String,
    callsPerThread: Int = 1,
    minimumRounds: Int = minimumOverlapRounds,
    events: EventLog,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ round: (Int) async throws -> Void
  ) async throws {
    if underThreadSanitizer {
      for number in 1...rounds { try await round(number) }
      events.record("\(what): \(rounds) rounds under ThreadSanitizer")
      return
    }
    let clock = ContinuousClock()
    let start = clock.now
    var (played, meetings) = (0, 0)
    while meetings < requiredMeetings || played < minimumRounds {
      guard clock.now - start < overlapTimeLimit else {
        try events.stop(
          "\(what) must meet on two threads at once often enough to decide this check",
          actual: "in \(played) rounds (\(overlapTimeLimit.formatted)) the kit's own two-step count lost"
            + " an update \(meetings) times, fewer than the \(requiredMeetings) it needs: the machine"
            + " is too busy for the threads to meet. Nothing was decided; run the check again.",
          sourceLocation: sourceLocation)
      }
      played += 1
      try await round(played)
      if await threadsMeet(calls: callsPerThread) { meetings += 1 }
    }
    events.record(
      "\(what): \(played) rounds, no failure; between them the kit's own two-step count lost an update"
        + " \(meetings) times, so the threads met")
  }

  /// Releases `overlapThreads` threads into the kit's own wrong counter,
  /// each adding 1 `calls` times by reading the count in one critical
  /// section and writing it in another, and says whether an update was
  /// lost: whether two threads met inside the window.
  static func threadsMeet(calls: Int) async -> Bool {
    let counter = TwoStepCounter()
    await run(
      (0..<overlapThreads).map { _ in
        {
          for _ in 0..<calls { counter.add() }
        }
      })
    return counter.value < overlapThreads * calls
  }

  /// The mistake overlap checks look for, made on purpose: the count is
  /// read under the lock, then written under it again, so two threads can
  /// both read the same count in between (with one call each, that is a
  /// check-then-set in two steps).
  private final class TwoStepCounter: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    func add() {
      let read = count.withLock { $0 }
      count.withLock { $0 = read + 1 }
    }
  }

  /// Whether the checks run under ThreadSanitizer (the runner's race pass).
  public static let underThreadSanitizer = workshop_sanitizer_checks_threads() != 0

  /// Starts one thread per closure, releases them together once all have
  /// started, and calls `done` (on one of them) when every closure returned.
  public static func start(
    _ bodies: [@Sendable () -> Void], whenAllReturned done: @escaping @Sendable () -> Void = {}
  ) {
    let starting = StartingLine(parties: bodies.count)
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
    let starting = StartingLine(parties: bodies.count)
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

  /// Holds threads until `parties` of them have arrived, then lets them go
  /// at the same instant.
  ///
  /// Waiters spin on an atomic, yielding the core only after 2 ms; the
  /// last arrival sets a start time 20 µs ahead, and every thread, the last
  /// one too, spins on the clock until it comes, so none leaves a cache
  /// line's round trip ahead of the others. A condition variable wakes its
  /// waiters one by one, each through the condition's lock, microseconds
  /// apart: released that way, a load-then-store guard let two of 2 threads
  /// through in none of 3,000 rounds under `stress-ng --cpu 2`, against 94
  /// released by a spinning barrier.
  private final class StartingLine: Sendable {
    private let arrived = Atomic(0)
    private let startTime = Atomic<UInt64>(0)  // 0 until the last arrival sets it.
    private let parties: Int

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
      if arrived.add(1, ordering: .sequentiallyConsistent).newValue == parties {
        startTime.store(DispatchTime.now().uptimeNanoseconds + Self.lead, ordering: .sequentiallyConsistent)
      }
      let yieldAfter = DispatchTime.now().uptimeNanoseconds + Self.spinning
      var start = startTime.load(ordering: .sequentiallyConsistent)
      while start == 0 {
        if DispatchTime.now().uptimeNanoseconds > yieldAfter { sched_yield() }
        start = startTime.load(ordering: .sequentiallyConsistent)
      }
      while DispatchTime.now().uptimeNanoseconds < start {}
    }

    /// How far ahead of the last arrival the start is set: 20 µs, long
    /// enough for the store to reach every waiter before it.
    static let lead: UInt64 = 20_000

    /// How long a waiter spins before it also yields its core: 2 ms. On a
    /// loaded machine a waiter that yields at once hands its core to the
    /// load, and the threads meet less often.
    static let spinning: UInt64 = 2_000_000
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
