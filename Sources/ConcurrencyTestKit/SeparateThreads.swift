import Foundation

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
public enum SeparateThreads {
  /// How many times a race check plays its scenario. ThreadSanitizer's
  /// verdict follows from how the threads synchronise, not from timing, but
  /// in practice a single round misses now and then, far more often on a
  /// loaded machine: chapter 08's unlocked-state fix went unreported in 1 of
  /// 30 runs of five rounds alone and in 4 of 30 with three runs at once,
  /// and in none of 90 runs with three at once at twenty rounds.
  public static let rounds = 20

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

  /// Runs every closure on a thread of its own, all released at once, and
  /// returns when each has returned.
  public static func run(_ bodies: [@Sendable () -> Void]) async {
    await withCheckedContinuation { continuation in
      start(bodies) { continuation.resume() }
    }
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
