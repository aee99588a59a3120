import Foundation
import Synchronization
import WorkshopCore

/// The learner's grading: the table, one chapter's checks, and what both
/// remember of the learner's progress.
extension Workshop {
  func progress(_ workspace: Workspace, _ options: GradingOptions) -> Int32 {
    let report = Report(style: style, workspace: workspace, variant: options.variant, words: language)
    let console = self.console
    // The console clears the status line before each line it prints.
    let rows = TableRows(chapters: workspace.curriculum.chapters, header: report.progressHeader) { line in
      console.out(line)
    } row: {
      report.progressRow($0)
    }
    guard let (reports, reused) = grade(workspace, options, chapters: nil, reuse: true, rowReady: rows.take)
    else {
      return ExitCode.failure
    }
    rows.finish(reports)
    let current = Whereabouts(workspace: workspace).current(reports)
    console.out(report.progressFooter(reports, reused: reused, current: current))
    return ExitCode.success
  }

  func check(_ chapter: Curriculum.Chapter, _ workspace: Workspace, _ options: GradingOptions, timeline: Bool)
    -> Int32
  {
    guard let (reports, _) = grade(workspace, options, chapters: [chapter]), let report = reports.first else {
      return ExitCode.failure
    }
    let pointers = CodePointer(workspace: workspace, variant: options.variant, words: language).pointers(
      report)
    console.out(
      Report(style: style, workspace: workspace, variant: options.variant, words: language).chapterDetail(
        report, pointers: pointers))
    if timeline, writeTimelines(report, workspace, options.variant) != ExitCode.success {
      return ExitCode.failure
    }
    return report.state == .done ? ExitCode.success : ExitCode.failure
  }

  /// Grades `chapters` (every chapter when nil) and keeps the results
  /// (see ``ResultCache``). With `reuse`, a chapter whose inputs did not
  /// change since its kept result is not graded again: its number is in
  /// `reused`.
  ///
  /// `rowReady` is given each chapter's report as soon as it is final (a
  /// kept one first, as the learner's table will show it), from any thread,
  /// one at a time.
  func grade(
    _ workspace: Workspace, _ options: GradingOptions, chapters: [Curriculum.Chapter]?, reuse: Bool = false,
    rowReady: (@Sendable (ChapterReport) -> Void)? = nil
  ) -> (reports: [ChapterReport], reused: Set<Int>)? {
    if !options.solutions { Starters(workspace: workspace).remember() }
    var grader = Grader(
      workspace: workspace, variant: options.variant,
      timeLimit: options.timeLimit, progress: console.status)
    grader.words = language
    if !options.solutions {
      grader.versionsPending = Starters(workspace: workspace).versionsLeftForLater(
        gradingChapters: chapters?.count ?? workspace.curriculum.chapters.count)
    }
    let record = GradingRecord(grader)
    var kept: [ChapterReport] = []
    var stale = chapters ?? workspace.curriculum.chapters
    if reuse { (kept, stale) = record.lookUp(stale) }
    if let rowReady {
      let oneAtATime = Mutex(())
      let solutions = options.solutions
      let shown = { @Sendable (report: ChapterReport) in
        oneAtATime.withLock { _ in
          rowReady(solutions ? report : KnownChecks(workspace: workspace).fill([report])[0])
        }
      }
      kept.forEach(shown)
      grader.reported = shown
    }
    do {
      var reports: [ChapterReport] = []
      if stale.count == 1, let quick = try grader.gradeQuickly(stale[0]) {
        reports = quick
      } else if !stale.isEmpty {
        reports = try grader.grade(stale)
      }
      let shown = workspace.curriculum.chapters.compactMap { chapter in
        (kept + reports).first { $0.chapter.number == chapter.number }
      }
      reports = record.keep(reports, showing: shown)
      console.clearStatus()
      if grader.sandbox == nil { console.err(style.dim("note: " + Sandbox.unavailableNote(language))) }
      return (reports, Set(kept.map(\.chapter.number)))
    } catch {
      console.clearStatus()
      console.err("error: \(error)")
      return nil
    }
  }
}
