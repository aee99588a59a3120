import Synchronization
import Testing

/// Overlap checks: rounds played until two threads were seen to meet.
extension SeparateThreads {
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
  public static let requiredMeetings = 10

  /// The fewest rounds an overlap check plays, however soon the threads met.
  public static let minimumOverlapRounds = 100

  /// How long an overlap check may keep playing before it gives up:
  /// 12 times the hang bound (12 s by default), within the 15 s the runner
  /// gives one check. On 2 cores, unloaded, the 100 rounds a check plays at
  /// least take 0.1 s in chapters 06, 11 and 12, and the kit's code lost
  /// updates 10 to 24 times in them. With both cores loaded by
  /// `stress-ng --cpu 2`, right fixes of chapter 06 passed 30 runs of 30
  /// (1 to 9.5 s) and of chapter 12 (20 tries a thread) 30 of 30 (1.1 to
  /// 5.5 s); chapter 11's closing check, which plays 500 rounds of a dearer
  /// scenario, passed right fixes in 4 runs of 5 each (6.5 to 12 s) and
  /// ran out of time in the fifth. A check that runs out of time fails with
  /// that reason; it never passes blind.
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
    private let count = Atomic(0)

    var value: Int { count.load(ordering: .sequentiallyConsistent) }

    func add() {
      let read = count.load(ordering: .acquiring)
      count.store(read + 1, ordering: .releasing)
    }
  }
}
