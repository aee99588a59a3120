import Foundation
import Synchronization

/// Holds threads until `parties` of them have arrived and are all on a
/// core at the same time, then lets them go at the same instant.
///
/// The first arrivals sleep until the last one wakes them: a woken thread
/// is scheduled at once, where a spinning one may have lost its core to
/// the load. Then the threads pass a ball round, each bumping a shared
/// atomic in its turn: a full turn takes well under a microsecond when
/// every thread is running, and a time slice of another process when one
/// is not. After `fastTurns` fast turns in a row (or `patience`) the first
/// thread sets a start time `lead` ahead, and every thread spins on the
/// clock until it comes (plus its offset, `offset(of:)`), so none leaves a
/// cache line's round trip ahead of the others.
///
/// All of it matters for checks that need two threads inside a window a
/// few instructions wide (an atomic load, then a separate store). A
/// condition variable wakes its waiters one by one, microseconds apart:
/// released that way, a load-then-store guard let two of 2 threads
/// through in none of 3,000 rounds under `stress-ng --cpu 2`. A start
/// time alone, set by the last arrival, releases threads that are not
/// running when it comes whenever the machine is loaded: with both cores
/// busy it let the guard through twice in 2 to 4 rounds of 2,000; with
/// the threads pinned and the ball, in 89 to 99 (unloaded, 89 to 134).
/// Parked between releases as well (``ParkedThreads``), in about 22 of
/// 1,000 under load, each release some 50 times cheaper (0.15 ms, not 8).
final class StartingLine: Sendable {
  private let arrived = Atomic(0)
  private let ball = Atomic(0)
  private let allArrived = DispatchSemaphore(value: 0)
  private let startTime = Atomic<UInt64>(0)  // 0 until the first thread sets it.
  private let parties: Int
  /// Which release this is, counted over the whole process: it picks
  /// each thread's offset from the start (see `offset(of:)`).
  private let release: Int

  init(parties: Int) {
    self.parties = parties
    release = Self.sweepPosition ?? Self.releases.add(1, ordering: .relaxed).oldValue
  }

  private static let releases = Atomic(0)

  /// Set while an overlap check plays one of its rounds and then the kit's
  /// own proof: both release their threads at the same step of the sweep,
  /// so wherever on the sweep two threads can meet, the learner's round
  /// was there whenever the kit's proof was.
  @TaskLocal static var sweepPosition: Int?

  /// Waits for the others, and returns at this thread's moment to go.
  /// The caller has pinned the thread to its core
  /// (``ParkedThreads/pinCurrentThread(toCore:)``).
  func arriveAndWait() {
    let place = arrived.add(1, ordering: .sequentiallyConsistent).newValue - 1
    if place < parties - 1 {
      allArrived.wait()
    } else {
      for _ in 1..<parties { allArrived.signal() }
    }
    if parties > 1 {
      if place == 0 { lead() } else { follow(place) }
    } else {
      startTime.store(Self.now + Self.lead, ordering: .sequentiallyConsistent)
    }
    let start = startTime.load(ordering: .sequentiallyConsistent) + offset(of: place)
    while Self.now < start {}
  }

  /// How long after the start the thread in `place` leaves.
  ///
  /// The first leaves `spread` after it; each other one anywhere from the
  /// start to twice `spread` after it, a different step of `offsetStep`
  /// each release, every step once in `offsetSteps` releases. Two threads
  /// released at one instant meet only if the code under test takes as
  /// long on each to reach its window: a callback with an error and one
  /// with a profile do not (boxing the error alone shifted one thread
  /// enough that an atomic load-then-store guard double-passed in 10 of
  /// 1,000 rounds instead of 105, and in none under load). Sweeping one
  /// thread's start across the other's lets a round meet whatever the
  /// difference, up to `spread`, and the kit's own proof
  /// (`threadsMeet`) plays the same sweep.
  private func offset(of place: Int) -> UInt64 {
    guard place > 0 else { return Self.spread }
    let step = ((release % Self.offsetSteps) * 37 + place * 11) % Self.offsetSteps
    return UInt64(step) * Self.offsetStep
  }

  /// How far apart the threads' starts are swept, either way: 200 ns.
  static let spread: UInt64 = 200
  /// The sweep's step, about the cost of reading the clock on Linux: 10 ns.
  /// (Apple silicon's clock ticks every 41.67 ns, so there the steps fall
  /// into ticks of that size.)
  static let offsetStep: UInt64 = 10
  /// How many steps the sweep has: from 0 to twice `spread`.
  static let offsetSteps = Int(2 * spread / offsetStep) + 1

  /// The first thread: waits for the others, then passes the ball until
  /// `fastTurns` turns in a row took under `fastTurn` each, and sets the start.
  private func lead() {
    var fast = 0
    var turnStarted = Self.now
    let giveUp = turnStarted + Self.patience
    while true {
      ball.add(1, ordering: .sequentiallyConsistent)
      var turn = Spin()
      while !ball.load(ordering: .sequentiallyConsistent).isMultiple(of: parties) {
        // A turn can take a whole time slice when a thread lost its core;
        // past `patience` the threads go anyway.
        if Self.now > giveUp { break }
        turn.once()
      }
      let now = Self.now
      fast = now - turnStarted < Self.fastTurn ? fast + 1 : 0
      turnStarted = now
      if fast == Self.fastTurns || now > giveUp {
        startTime.store(now + Self.lead, ordering: .sequentiallyConsistent)
        return
      }
    }
  }

  /// Any other thread: bumps the ball in its turn until the start is set.
  private func follow(_ place: Int) {
    var waiting = Spin()
    while startTime.load(ordering: .sequentiallyConsistent) == 0 {
      if ball.load(ordering: .sequentiallyConsistent) % parties == place {
        ball.add(1, ordering: .sequentiallyConsistent)
        waiting = Spin()
      } else {
        waiting.once()
      }
    }
  }

  private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

  /// How many fast turns in a row show every thread on a core: 3.
  static let fastTurns = 3

  /// A turn of the ball slower than this had a thread off its core: 5 µs.
  static let fastTurn: UInt64 = 5_000

  /// How long the ball goes round at most before the threads start
  /// anyway: 20 ms.
  static let patience: UInt64 = 20_000_000

  /// How far ahead of the last fast turn the start is set: 2 µs, long
  /// enough for the store to reach every spinning thread, short enough
  /// for none to lose its core before it comes.
  static let lead: UInt64 = 2_000

  /// A spinning wait that also yields its core after 2 ms. On a loaded
  /// machine a waiter that yields at once hands its core to the load, and
  /// the threads are rarely all running at once.
  struct Spin {
    private let yieldAfter = StartingLine.now + 2_000_000
    mutating func once() {
      if StartingLine.now > yieldAfter { sched_yield() }
    }
  }
}
