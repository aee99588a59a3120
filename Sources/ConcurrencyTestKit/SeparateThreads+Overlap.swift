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
  /// released at one start time on 2 cores, an atomic load-then-store
  /// guard let two of 2 threads through in 3.4 % of rounds under
  /// `stress-ng --cpu 2`, two of 16 in 0.3 %.
  public static let overlapThreads = 2

  /// How many times the kit's own two-step code must lose an update, in
  /// the rounds between a check's rounds, before the check may pass: the
  /// proof that the threads met within a few instructions of each other
  /// often enough, on this machine and at this moment, for the learner's
  /// two-step mistake to have shown.
  ///
  /// The kit's code loads an `Atomic` count and then stores it, the
  /// narrowest window of the mistakes these checks look for (a `Mutex`
  /// read in one `withLock` and written in another is far wider), and each
  /// of the check's rounds is paired with one of the kit's, at the same
  /// step of the start sweep. If the learner's two-step code lets two
  /// threads through at least as often as the kit's, each time either of
  /// them shows it, it is the learner's at least half the time: the chance
  /// that the kit's code shows it 16 times before the learner's ever does
  /// is at most 2⁻¹⁶ (1 in 65,536). Measured under `stress-ng --cpu 4
  /// --switch 2`, a learner's `Atomic` load-then-store guard showed it 1.2
  /// to 2 times as often as the kit's code; unloaded, about twice as often.
  ///
  /// History: 10 meetings, with the round and the proof at unrelated steps
  /// of the sweep and the round always first, let such a guard pass the
  /// kit's own test once in a fresh-clone `verify` and in 1 of 25 runs
  /// under that load (the chance was taken for e⁻¹⁰, which holds only for
  /// a learner's code far likelier to show it than the kit's). Before that,
  /// the kit's code was a `Mutex` taken twice, until chapter 06's blind
  /// `Atomic` load-then-store passed in CI: on a loaded machine a thread
  /// preempted inside that wider window lost updates whether or not the
  /// threads ever met, and the check stopped after its 100 rounds.
  public static let requiredMeetings = 16

  /// The fewest rounds an overlap check plays, however soon the threads met.
  public static let minimumOverlapRounds = 100

  /// How long an overlap check may keep playing before it gives up:
  /// 12 times the hang bound (12 s by default), within the 15 s the runner
  /// gives one check. On 2 cores loaded by `stress-ng --cpu 2`, right fixes
  /// of chapter 06 passed 20 runs of 20 (0.2 to 0.8 s) and of chapter 12
  /// (20 tries a thread) 20 of 20 (0.3 to 0.5 s); chapter 11's closing
  /// check, which plays at least 500 rounds of a dearer scenario, 10 of 10
  /// (0.8 to 2.7 s; 8 of 10 while its fake provider started a new thread
  /// for each fix it delivered, the other two running out of time). A
  /// check that runs out of time fails with that reason; it never passes
  /// blind.
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
  /// into code of its own that is wrong in exactly that way (an `Atomic`
  /// count loaded, then stored), and counts the
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
  /// the kit's own code (whose atomics would order the threads).
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
        // Not a failure: the runner sees the mark, runs the check again
        // with more time, and calls it undecided if it still cannot meet.
        var undecided = events.verdict(
          "\(what) must meet on two threads at once often enough to decide this check",
          expected: nil,
          actual: "in \(played) rounds (\(overlapTimeLimit.formatted)) the kit's own two-step count lost"
            + " an update \(meetings) times, fewer than the \(requiredMeetings) it needs: the machine"
            + " is too busy for the threads to meet. Nothing was decided; run the check again.")
        undecided.undecided = true
        try events.stop(undecided, sourceLocation: sourceLocation)
      }
      played += 1
      Pulse.beat()
      // The round and the kit's proof after it release their threads at
      // the same step of the start sweep, and take turns at going first:
      // whatever else the process releases in step with them (another
      // overlap check, run in parallel by Swift Testing's default) falls
      // on rounds and proofs alike, so a proof never vouches for rounds
      // that had less chance to meet than it had.
      let met = try await StartingLine.$sweepPosition.withValue(played) {
        guard played.isMultiple(of: 2) else {
          try await round(played)
          return await threadsMeet(calls: callsPerThread)
        }
        let met = await threadsMeet(calls: callsPerThread)
        try await round(played)
        return met
      }
      if met { meetings += 1 }
    }
    events.record(
      "\(what): \(played) rounds, no failure; between them the kit's own two-step count lost an update"
        + " \(meetings) times, so the threads met")
  }

  /// Releases `overlapThreads` threads into the kit's own wrong counter,
  /// each adding 1 `calls` times by loading the count and then storing it,
  /// and says whether an update was lost: whether two threads met inside
  /// the window.
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

  /// The mistake overlap checks look for, made on purpose in its narrowest
  /// form: the count is loaded, then stored, so two threads can both load
  /// the same count in between (with one call each, that is a check-then-set
  /// in two steps).
  private final class TwoStepCounter: Sendable {
    private let count = Atomic(0)

    var value: Int { count.load(ordering: .sequentiallyConsistent) }

    func add() {
      let read = count.load(ordering: .acquiring)
      count.store(read + 1, ordering: .releasing)
    }
  }
}
