import Foundation
import Testing

@testable import Quiet

/// What the kit attaches while a check run by the runner keeps moving
/// (`CheckTranscript.Heartbeat`), without the kit.
private func beat() {
  guard ProcessInfo.processInfo.environment["WORKSHOP_HEARTBEAT"] == "1" else { return }
  Attachment.record(Array("workshop heartbeat".utf8), named: "workshop-heartbeat")
}

@Suite struct QuietTests {
  /// Says it beats, then hangs and says nothing more.
  @Test("Goes quiet") func goesQuiet() async {
    beat()
    await waitForSignal()
  }

  /// Takes longer than the silence a beating check is allowed, and beats
  /// all along: it must run to its end.
  @Test("Keeps moving for four seconds") func keepsMoving() async throws {
    beat()
    for _ in 0..<8 {
      try await Task.sleep(for: .milliseconds(500))  // A check that takes this long, beating.
      beat()
    }
    #expect(answer() == 42)
  }

  /// Hangs without ever beating: it runs to the time limit.
  @Test("Hangs without a beat") func hangsWithoutABeat() async { await waitForSignal() }
}
