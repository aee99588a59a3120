import Synchronization
import WorkshopCore

extension Verifier {
  /// What the wrong and right fixes gave, kept until their place in the
  /// report: the lines they wrote and their items' counts.
  struct FixesOutcome: Sendable {
    var lines: [String]
    var passed: Int
    var failed: Int
    var undecided: Int
  }

  /// Starts grading the course's wrong and right fixes in copies of their
  /// own, beside the steps before them in the report, and keeps what they
  /// write until ``reportFixes(_:into:)`` prints it in its place.
  ///
  /// The fixes take most of `verify`'s time and keep both cores busy, while
  /// the steps before them mostly wait: the solutions' and the starters'
  /// checks on their hang guards, the browser on its pages. The copies
  /// build in folders of their own (see ``GradingCopy``).
  /// `whenACopyIsDone` runs when the first copy has no fix left, maybe
  /// before the steps before the fixes are done (see ``WhenBoth``).
  func startFixes(whenACopyIsDone: @escaping @Sendable () -> Void) -> Background<FixesOutcome> {
    let (workspace, style, timeLimit, repeatCount, progress) = (
      self.workspace, self.style, self.timeLimit, self.repeatCount, self.progress
    )
    return Background {
      let lines = Mutex<[String]>([])
      let write: @Sendable (String) -> Void = { line in lines.withLock { $0.append(line) } }
      let verifier = Verifier(
        workspace: workspace, style: style, timeLimit: timeLimit, repeatCount: repeatCount, write: write,
        progress: progress)
      let tally = Tally(style: style, write: write)
      verifier.checkMutations(
        tally, chapters: workspace.curriculum.chapters, whenACopyIsDone: whenACopyIsDone)
      return FixesOutcome(
        lines: lines.withLock { $0 }, passed: tally.passed, failed: tally.failed, undecided: tally.undecided)
    }
  }

  /// Waits for the fixes ``startFixes(whenACopyIsDone:)`` started, writes
  /// what they wrote, and counts their items in `tally`.
  func reportFixes(_ fixes: Background<FixesOutcome>, into tally: Tally) {
    let outcome = fixes.value()
    for line in outcome.lines { write(line) }
    tally.passed += outcome.passed
    tally.failed += outcome.failed
    tally.undecided += outcome.undecided
  }
}

/// Runs an action once, when both of two things have happened, in either
/// order; each may be said more than once.
///
/// `verify` starts the tooling's tests when a fix copy is done and the
/// solutions' step is too: both build in the solutions' folder.
///
/// ```swift
/// let start = WhenBoth { tooling.start() }
/// let fixes = startFixes(whenACopyIsDone: start.first)
/// gradeTheSolutions()
/// start.second()
/// ```
final class WhenBoth: Sendable {
  private let state = Mutex((first: false, second: false, done: false))
  private let action: @Sendable () -> Void

  init(_ action: @escaping @Sendable () -> Void) { self.action = action }

  /// The first thing happened.
  @Sendable func first() { arrive { $0.first = true } }

  /// The second thing happened.
  @Sendable func second() { arrive { $0.second = true } }

  private func arrive(_ mark: (inout (first: Bool, second: Bool, done: Bool)) -> Void) {
    let run = state.withLock { state in
      mark(&state)
      guard state.first, state.second, !state.done else { return false }
      state.done = true
      return true
    }
    if run { action() }
  }
}
