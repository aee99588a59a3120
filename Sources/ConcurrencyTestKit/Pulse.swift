import CheckTranscript
import Foundation
import Synchronization
import Testing

/// The kit's side of the runner's ``Heartbeat``: a check says it beats as
/// it starts (``announce()``), then beats from its own task whenever it
/// moves on: one of the kit's waits ended, a round of threads was played
/// (``beat()``, at most twice a second), or an exit test's process is
/// running (``awaitingExitTest(_:)``).
///
/// A check stuck in an endless loop or on a lock that is never released
/// moves on no more, and its beats stop; the runner then stops it after
/// ``Heartbeat/silentBounds`` hang bounds instead of at its time limit.
///
/// Beats are recorded only from the check's own task, at the points where
/// it moved on, never from a task or thread of their own: a thread woken
/// twice a second on a two-core machine took a core from the kit's parked
/// threads often enough that overlap checks met several times less often.
enum Pulse {
  /// Whether the runner asked for beats.
  static let requested = ProcessInfo.processInfo.environment[Heartbeat.environmentKey] == "1"

  /// When this process last recorded a beat.
  private static let last = Mutex<ContinuousClock.Instant?>(nil)

  /// Says, as a check starts, that it beats.
  static func announce() {
    guard requested, Test.current != nil else { return }
    record()
  }

  /// Beats, unless this process beat less than ``Heartbeat/interval`` ago.
  /// Called from the check's task (a wait, a round), where the attachment
  /// is the check's.
  static func beat() {
    guard requested, Test.current != nil else { return }
    let now = ContinuousClock.now
    let due = last.withLock { last -> Bool in
      if let last, now - last < .seconds(Heartbeat.interval) { return false }
      last = now
      return true
    }
    if due { record() }
  }

  /// Runs `body`, which awaits an exit test, beating all along: its process
  /// records nothing this one sees until it ends, and has a watchdog of its
  /// own. No threads of the check's run in this process meanwhile.
  static func awaitingExitTest<Result>(_ body: () async -> Result) async -> Result {
    guard requested, Test.current != nil else { return await body() }
    let beats = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(Heartbeat.interval))  // Real time: no verdict depends on it.
        guard !Task.isCancelled else { return }
        record()
      }
    }
    let result = await body()
    beats.cancel()
    await beats.value  // Nothing is attached after the check ended.
    return result
  }

  private static func record() {
    Attachment.record(Heartbeat.bytes, named: Heartbeat.attachmentName)
  }
}
