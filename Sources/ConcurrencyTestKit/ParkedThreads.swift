import Foundation
import SanitizerSupport
import Synchronization

/// The threads ``SeparateThreads`` runs closures on: each parked on its own
/// core between releases, and woken for the next.
///
/// A new thread for every release cost 4 to 8 ms on a loaded machine
/// (`stress-ng --cpu 2` on 2 cores): created wherever the scheduler put it,
/// it was moved to its core, then queued there behind the load's time
/// slice. A thread parked on its core and woken is scheduled there at once,
/// so overlap checks, which need hundreds of releases, stay within their
/// time limit under load.
///
/// A release's threads park only once every closure of it has returned
/// (see ``SeparateThreads/start(_:whenAllReturned:)``): if one never
/// returns, none of them parks again, and the next release gets new threads.
enum ParkedThreads {
  /// Runs `job` on a parked thread pinned to the `place`-th core this
  /// process may use, or on a new one if none is parked there.
  /// Once `job` has returned, the thread is listed as parked, then calls
  /// `parked`, so that a release that follows finds it (and hands it its
  /// next job, which it takes once `parked` has returned).
  static func run(
    onCore place: Int, _ job: @escaping @Sendable () -> Void,
    thenOnceParked parked: @escaping @Sendable () -> Void
  ) {
    let thread = idle.withLock { idle in idle[place]?.popLast() } ?? ParkedThread(core: place)
    thread.run {
      job()
      idle.withLock { idle in idle[place, default: []].append(thread) }
      parked()
    }
  }

  /// Pins the calling thread to the `place`-th core (counting round again
  /// past the last) that this process may use, counting from one its
  /// process ID picks, so that processes grading side by side spread out.
  ///
  /// Linux balances load, not threads: with a busy process on each of two
  /// cores, it may keep two spinning threads on one core, taking turns
  /// there, never running at the same moment. macOS offers no pinning (its
  /// affinity tags are hints, ignored on Apple silicon), and Macs have more
  /// cores than a check has threads: there this does nothing.
  static func pinCurrentThread(toCore place: Int) {
    _ = workshop_pin_thread_to_allowed_cpu(Int32(place))
  }

  /// Parked threads by core.
  private static let idle = Mutex<[Int: [ParkedThread]]>([:])

  /// A thread that runs one job at a time, parking between them.
  private final class ParkedThread: @unchecked Sendable {
    // Guarded by `condition`, a pthread lock and condition that
    // ThreadSanitizer sees on every platform.
    private var job: (@Sendable () -> Void)?
    private let condition = NSCondition()

    init(core: Int) {
      Thread.detachNewThread { [self] in
        ParkedThreads.pinCurrentThread(toCore: core)
        while true { nextJob()() }
      }
    }

    /// Hands `job` to the thread and wakes it. The job may park the thread
    /// before it returns: the thread takes its next job only after that.
    func run(_ job: @escaping @Sendable () -> Void) {
      condition.withLock {
        self.job = job
        condition.signal()
      }
    }

    private func nextJob() -> @Sendable () -> Void {
      condition.withLock {
        while job == nil { condition.wait() }
        defer { job = nil }
        return job!
      }
    }
  }
}
