import Synchronization
import WorkshopCore

extension Verifier {
  /// What the wrong and right fixes gave, kept until their place in the
  /// report: the lines they wrote, their items' counts, and the reports of
  /// the wrong fixes (for the timelines).
  struct FixesOutcome: Sendable {
    var lines: [String]
    var passed: Int
    var failed: Int
    var wrongFixes: [ChapterReport]
  }

  /// Starts grading the course's wrong and right fixes in copies of their
  /// own, beside the steps before them in the report, and keeps what they
  /// write until ``reportFixes(_:into:)`` prints it in its place.
  ///
  /// The fixes take most of `verify`'s time and keep both cores busy, while
  /// the steps before them mostly wait: the solutions' and the starters'
  /// checks on their hang guards, the browser on its pages. Nothing is
  /// shared: the copies build in their own folders (see ``GradingCopy``).
  /// `whenACopyIsDone` runs when the first copy has no fix left.
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
      let wrongFixes = verifier.checkMutations(
        tally, chapters: workspace.curriculum.chapters, whenACopyIsDone: whenACopyIsDone)
      return FixesOutcome(
        lines: lines.withLock { $0 }, passed: tally.passed, failed: tally.failed, wrongFixes: wrongFixes)
    }
  }

  /// Waits for the fixes ``startFixes(whenACopyIsDone:)`` started, writes
  /// what they wrote, and counts their items in `tally`.
  func reportFixes(_ fixes: Background<FixesOutcome>, into tally: Tally) -> [ChapterReport] {
    let outcome = fixes.value()
    for line in outcome.lines { write(line) }
    tally.passed += outcome.passed
    tally.failed += outcome.failed
    return outcome.wrongFixes
  }
}
