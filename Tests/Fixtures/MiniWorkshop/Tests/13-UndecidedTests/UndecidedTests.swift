import Foundation
import Testing

@testable import Undecided

/// What the kit records when a check's threads could not meet (see
/// `SeparateThreads.playOverlapping`): a verdict marked undecided.
private func recordUndecided() {
  let verdict =
    #"{"behaviour":"The threads must meet","events":[],"format":"workshop-verdict-1","runtimeSaid":[],"undecided":true}"#
  Attachment.record(Array(verdict.utf8), named: "verdict.json")
  // The kit's issue carries the verdict's prose, which pairs the two.
  Issue.record("The threads must meet\nRecorded events: (none)")
}

/// The kit's bound, which the runner raises when it runs a check again.
private var bound: Double {
  Double(ProcessInfo.processInfo.environment["WORKSHOP_HANG_BOUND"] ?? "") ?? 1
}

@Suite struct UndecidedTests {
  @Test("Decides with more time") func decidesLater() {
    if bound < 2 { recordUndecided() }
    #expect(answer() == 42)
  }

  /// Decides only with the time `grade` gives after the class: eight
  /// bounds, where a chapter's grading gives four.
  @Test("Decides after the class") func decidesAfterTheClass() {
    if bound < 5 { recordUndecided() }
    #expect(answer() == 42)
  }

  @Test("Never decides") func neverDecides() { recordUndecided() }

  @Test("Decides at once") func decides() { #expect(answer() == 42) }
}
