import CheckTranscript
import Foundation
import Synchronization
import Testing

/// Ends the test process when a check runs far longer than any check can,
/// so that plain `swift test` and Xcode never hang on a stuck check, and
/// when the process that started the checks is gone, so that nothing is
/// left running after `swift test` is stopped.
///
/// Every check that names the code it exercises (``Exercising``, which
/// every check of the course does) is watched from a thread of its own,
/// which neither an endless loop on the main actor nor a cooperative pool
/// full of blocked tasks can stop. A check still running after its limit,
/// ``Watchdog/limit`` (fifteen hang bounds: 15 s by default), ends the
/// process with the same words the runner uses:
///
///     ✗ “Waits for the whole quiet window before sending a request” did not
///       finish: it was stopped after 15 s. Something blocks forever or spins: …
///
/// Nothing is recorded as the check's issue, since the check's own task is
/// the one that is stuck; the runner, which runs each check in a process of
/// its own when a run does not finish, stops a stuck one well before this.
enum Watchdog {
  /// A running check's name and the instant after which it is stuck.
  struct Watched {
    var name: String
    var deadline: ContinuousClock.Instant
    var limit: Duration
  }

  /// The checks running now, by a number of their own.
  static let running = Mutex<(next: Int, checks: [Int: Watched], watching: Bool)>((0, [:], false))

  /// How long one check may run, in the kit's bound at the time it starts.
  static var limit: Duration { hangBound * 15 }

  /// Runs `body` (a check) watched: see ``Watchdog``.
  static func watch(_ name: String, _ body: () async throws -> Void) async throws {
    let limit = limit
    let (number, start) = running.withLock { state -> (Int, Bool) in
      state.next += 1
      state.checks[state.next] = Watched(name: name, deadline: .now + limit, limit: limit)
      defer { state.watching = true }
      return (state.next, !state.watching)
    }
    if start { startWatching() }
    defer { _ = running.withLock { $0.checks.removeValue(forKey: number) } }
    Pulse.announce()
    try await body()
  }

  /// Starts the watching thread, which wakes ten times a second.
  static func startWatching() {
    let parent = getppid()
    Thread.detachNewThread {
      while true {
        usleep(100_000)
        // `swift test` stopped (a `timeout`, a closed terminal) leaves this
        // process to init: nobody reads its results any more.
        if getppid() != parent { _exit(1) }
        let now = ContinuousClock.now
        let late = running.withLock { state in
          state.checks.values.filter { $0.deadline < now }.min { $0.deadline < $1.deadline }
        }
        guard let late else { continue }
        let message = """

          ✗ “\(late.name)” did not finish: it was stopped after \(late.limit.formatted.replacing("s", with: " s")). \(Stuck.cause)
            The test process ends here, so the checks still running have no result.
            `swift run workshop check` runs each check on its own and names every one that is stuck.


          """
        Array(message.utf8).withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
        _exit(1)
      }
    }
  }
}
