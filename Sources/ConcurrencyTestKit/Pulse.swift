import CheckTranscript
import Foundation
import Synchronization
import Testing

/// The kit's side of the runner's ``Heartbeat``: its waits, rounds and
/// events mark that a check moved (``moved()``), and a check watched by
/// ``Watchdog`` records a beat every half second in which it did.
///
/// A check stuck in an endless loop or on a lock that is never released
/// moves no more, and its beats stop; the runner then stops it after
/// ``Heartbeat/silentBounds`` hang bounds instead of at its time limit.
/// A check waiting for an exit test's process counts as moving: that
/// process has a watchdog of its own.
///
///     let result = await Pulse.awaitingExitTest {
///       await #expect(processExitsWith: .success) { /* ... */ }
///     }
enum Pulse {
  /// Whether the runner asked for beats.
  static let requested = ProcessInfo.processInfo.environment[Heartbeat.environmentKey] == "1"

  /// Bumped whenever a check moves.
  private static let progress = Atomic(0)

  /// How many exit tests are being awaited.
  private static let exitTests = Atomic(0)

  /// Marks that a check moved: a wait ended, an event was recorded, a
  /// round was played.
  static func moved() {
    progress.add(1, ordering: .relaxed)
  }

  /// Runs `body`, which awaits an exit test, counting as moving all along.
  static func awaitingExitTest<Result>(_ body: () async throws -> Result) async rethrows -> Result {
    exitTests.add(1, ordering: .relaxed)
    defer { exitTests.subtract(1, ordering: .relaxed) }
    return try await body()
  }

  /// Runs `body` (a check), beating while it moves when the runner asked.
  static func beating(_ body: () async throws -> Void) async throws {
    guard requested else { return try await body() }
    beat()
    // A task of the check's own (it inherits the check's task-local
    // values, so its attachments are the check's), ended before the check
    // returns: nothing is attached after the check ended.
    let beats = Task {
      var seen = progress.load(ordering: .relaxed)
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(Heartbeat.interval))  // Real time: no verdict depends on it.
        let now = progress.load(ordering: .relaxed)
        guard !Task.isCancelled else { return }
        if now != seen || exitTests.load(ordering: .relaxed) > 0 {
          seen = now
          beat()
        }
      }
    }
    do {
      try await body()
    } catch {
      beats.cancel()
      await beats.value
      throw error
    }
    beats.cancel()
    await beats.value
  }

  private static func beat() {
    Attachment.record(Heartbeat.bytes, named: Heartbeat.attachmentName)
  }
}
