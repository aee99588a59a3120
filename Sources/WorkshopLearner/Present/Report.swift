import CheckTranscript
import Foundation
import WorkshopCore

/// Renders grading results as text for learners and instructors.
struct Report: Sendable {
  var style: Style
  var workspace: Workspace
  /// What was graded: the learner's chapters or the solutions.
  var variant: Variant

  init(style: Style, workspace: Workspace, variant: Variant = .chapters) {
    self.style = style
    self.workspace = workspace
    self.variant = variant
  }

  /// A `workshop` command line, with `--solutions` when grading the solutions.
  private func workshop(_ arguments: String) -> String {
    let options = variant == .solutions ? " --solutions" : ""
    return style.command("swift run workshop" + (arguments.isEmpty ? "" : " " + arguments) + options)
  }

  // MARK: - Progress (the default command)

  /// The progress table, the overall line and what to do next; `reused`
  /// are the chapters whose results were kept from their last grading,
  /// their inputs unchanged since. The same text as ``progressHeader``,
  /// a ``progressRow(_:)`` per chapter and ``progressFooter(_:reused:current:)``,
  /// which the runner prints as each chapter is graded. `current` is the
  /// chapter the learner is on (``Whereabouts/current(_:)``), found by the
  /// use case: the report reads no files.
  func progress(_ reports: [ChapterReport], reused: Set<Int> = [], current: ChapterReport?) -> String {
    ([progressHeader] + reports.map(progressRow) + [progressFooter(reports, reused: reused, current: current)])
      .joined(separator: "\n")
  }

  /// The widest chapter title of the course, which sets the table's column.
  private var titleWidth: Int {
    max(7, workspace.curriculum.chapters.map(\.title.count).max() ?? 0)
  }

  /// The table's title and column names.
  var progressHeader: String {
    [
      style.bold(workspace.curriculum.title) + style.dim(" · progress"), "",
      "  " + style.dim(pad("#", 4) + pad("Chapter", titleWidth + 2) + pad("Checks", 9) + "State"),
    ].joined(separator: "\n")
  }

  /// One chapter's row of the table.
  func progressRow(_ report: ChapterReport) -> String {
    let checks = report.checks.isEmpty ? "–" : "\(report.passed)/\(report.total)"
    return "  " + pad(report.chapter.paddedNumber, 4) + pad(report.chapter.title, titleWidth + 2)
      + pad(checks, 9) + state(report) + raceNote(report) + versionsNote(report)
  }

  /// What follows the rows: the overall line, which chapters ran again,
  /// and what to do next.
  func progressFooter(_ reports: [ChapterReport], reused: Set<Int> = [], current: ChapterReport?) -> String {
    var lines: [String] = []
    let done = reports.filter { $0.state == .done }.count
    let passed = reports.reduce(0) { $0 + $1.passed }
    let total = reports.reduce(0) { $0 + $1.total }
    let shipped = reports.reduce(0) { $0 + $1.passedAsShipped }
    lines.append("")
    lines.append(
      "Progress: \(done) of \(reports.count) chapters done · \(passed) of \(total) checks pass"
        + style.dim(" (the untouched starters pass \(shipped))"))
    let kept = reports.filter { reused.contains($0.chapter.number) }.map(\.chapter.paddedNumber)
    let graded = reports.filter { !reused.contains($0.chapter.number) }.map(\.chapter.paddedNumber)
    if !kept.isEmpty {
      let what =
        graded.isEmpty
        ? "Nothing changed since the last grading, so nothing ran again"
        : graded.count <= kept.count
          ? "Graded now: \(graded.joined(separator: ", ")); the other chapters are unchanged since their last grading, so they did not run again"
          : "Chapters \(kept.joined(separator: ", ")): unchanged since their last grading, so they did not run again"
      lines.append(style.dim(what + "; `swift run workshop check NN` grades a chapter anew."))
    }
    lines.append("")
    lines.append(next(current))
    return lines.joined(separator: "\n")
  }

  /// One line on every chapter but `focus`, for `watch`.
  func summaryLine(_ reports: [ChapterReport], besides focus: Curriculum.Chapter?) -> String {
    let others = reports.filter { $0.chapter.number != focus?.number }
    let done = others.filter { $0.state == .done }.count
    let passed = reports.reduce(0) { $0 + $1.passed }
    let total = reports.reduce(0) { $0 + $1.total }
    var line =
      (focus == nil ? "Chapters" : "Other chapters") + ": \(done) of \(others.count) done · "
      + "\(passed) of \(total) checks pass in all"
    let broken = others.filter { $0.state == .doesNotCompile }
    if !broken.isEmpty {
      line +=
        " · " + style.red("does not compile: ")
        + broken.map { $0.chapter.paddedNumber + (errorLocation($0).map { " (\($0))" } ?? "") }
        .joined(separator: ", ")
    }
    return line
  }

  /// `Chapters/05-TaskOwnership/FeedLoader.swift:12`: where the first
  /// compiler error of a chapter is.
  func errorLocation(_ report: ChapterReport) -> String? {
    guard let first = report.compileErrors.first, let error = Diagnostics.compilerErrors(in: first).first
    else { return nil }
    return "\(error.path):\(error.line)"
  }

  /// The "Next:" paragraph: the chapter the learner is on (`current`; nil
  /// when every chapter is done) and what to do about it.
  func next(_ current: ChapterReport?) -> String {
    guard let report = current else {
      return style.green("Every chapter is done. Well played!")
        + " Compare your code with Solutions/, or read the slides in Slides/ again."
    }
    let chapter = report.chapter
    var lines = [
      style.bold("Next:") + " chapter \(chapter.paddedNumber), \(chapter.title)"
    ]
    switch report.state {
    case .doesNotCompile:
      lines.append("  It does not compile yet:")
      lines += indent(report.compileErrors.first ?? "", by: 4)
    case .crashed:
      lines.append("  Its checks crashed: \(firstLine(report.crash))")
      if let check = report.checks.first(where: { $0.status == .interrupted }) {
        lines.append("  while running: \(check.name)")
      }
    case .timedOut:
      let stuck = report.checks.filter { $0.status == .interrupted }.map(\.name)
      lines.append(
        stuck.isEmpty
          ? "  Its checks did not finish within \(Grader.seconds(report.timeLimit ?? 0))."
          : "  \(stuck.count == 1 ? "A check does" : "\(stuck.count) checks do") not finish on \(stuck.count == 1 ? "its" : "their") own within \(Grader.seconds(report.timeLimit ?? 0)): \(stuck.prefix(2).joined(separator: ", "))\(stuck.count > 2 ? ", …" : "")."
      )
    case .raceCheckNotRun:
      if case .notRun(let reason)? = report.raceCheck {
        lines.append("  Every check passes, but the race check could not run: \(reason).")
      }
    default:
      if let check = report.failing.first {
        lines.append("  " + style.mark(false) + " " + check.name)
      }
    }
    lines.append(
      "  Open \(style.cyan(workspace.exerciseFiles(chapter, in: variant))), then run "
        + workshop("watch \(chapter.paddedNumber)") + ": it grades the chapter again on every save.")
    return lines.joined(separator: "\n")
  }

  // MARK: - One chapter (`workshop check`)

  /// Every check of one chapter; failing ones with what was expected and
  /// what happened, and where in the learner's code each points
  /// (`pointers`, by check ID: see ``CodePointer``).
  func chapterDetail(
    _ report: ChapterReport, pointers: [String: CodePointer.Found] = [:], watching: Bool = false
  ) -> String {
    let again = watching ? "save" : "run " + workshop("check \(report.chapter.paddedNumber)") + " again"
    let chapter = report.chapter
    var lines = [
      style.bold("Chapter \(chapter.paddedNumber) · \(chapter.title)")
        + style.dim("  (\(report.state.rawValue))"),
      style.dim(chapter.summary), "",
    ]
    if !report.compileErrors.isEmpty {
      let refused = report.compileErrors.contains { $0.hasSuffix(Builder.refusal) }
      lines.append(
        style.red(
          refused
            ? "It is not built: it holds what no exercise needs, and a chapter may not."
            : "It does not compile:"))
      for error in report.compileErrors { lines += indent(error, by: 2) }
      lines.append("")
      // Files that are gone are restored, not fixed.
      let gone = report.compileErrors.allSatisfy { $0.contains(Builder.resetCommand(chapter)) }
      if gone {
        // SwiftPM reuses its evaluation of Package.swift, made while the
        // files were there, and warns about the target it finds empty.
        lines.append(
          style.dim(
            "If SwiftPM warned that source files for target \(chapter.codeModule) should be under Sources/, that is the same missing code: the warning goes once it is back."
          ))
      }
      lines.append(
        gone
          ? "Run \(style.cyan("`\(Builder.resetCommand(chapter))`")) to get the chapter's files back (what is there now is backed up first), then \(again)."
          : "\(refused ? "Remove what is named above from" : "Fix the error above in") \(style.cyan(workspace.exerciseFiles(chapter, in: variant))), then \(again)."
      )
      return lines.joined(separator: "\n")
    }
    // A failure whose words are those of one shown above (a chapter whose
    // code never returns fails many checks alike) is named, not repeated.
    var shown: [String: String] = [:]
    for check in report.checks {
      if check.status == .failed || check.status == .interrupted, !check.issues.isEmpty {
        let words = check.issues.map(\.description).joined(separator: "\n")
        if let first = shown[words] {
          lines.append("  " + style.mark(false) + " " + check.name)
          lines += pointer(pointers[check.id])
          lines.append("      " + style.dim("Failed the same way as “\(first)” above."))
          continue
        }
        shown[words] = check.name
      }
      switch check.status {
      case .passed:
        lines.append("  " + style.mark(true) + " " + check.name)
      case .skipped:
        lines.append("  " + style.dim("- \(check.name) (skipped)"))
      case .undecided:
        // Neither passed nor failed: the machine decided nothing.
        lines.append("  " + style.yellow("?") + " " + check.name + style.yellow("  (undecided)"))
        lines.append(
          "      The machine was too busy for this check's threads to meet, even run again alone"
            + " with more time: nothing was decided about your code. Run it again when the machine is quieter."
        )
      case .interrupted:
        lines.append("  " + style.mark(false) + " " + check.name + style.red("  (no result)"))
        lines += pointer(pointers[check.id])
        for issue in check.issues { lines += indent(issue.description, by: 6) }
      case .failed:
        lines.append("  " + style.mark(false) + " " + check.name)
        lines += pointer(pointers[check.id])
        var previousLog: [RecordedEvent]?
        // A parameterized check's failures: the first case's in full, the
        // other cases by name.
        // Cases run side by side and record in any order: shown in their
        // own order, so that every run prints the same.
        let cases = check.issues.map(\.testCase)
        let labels = Set(cases.compactMap { $0 }).sorted {
          $0.localizedStandardCompare($1) == .orderedAscending
        }
        let firstCase = labels.first
        let otherCases = Array(labels.dropFirst())
        let shownIssues =
          labels.count > 1 && cases.allSatisfy({ $0 != nil })
          ? check.issues.filter { $0.testCase == firstCase } : check.issues
        defer {
          if shownIssues.count < check.issues.count {
            lines.append(
              "      "
                + style.dim(
                  "And \(otherCases.count) more cases failed: \(otherCases.joined(separator: "; ")).")
            )
          }
        }
        for issue in shownIssues {
          // Several expectations of one check usually share its event log:
          // print it once.
          let log = issue.verdict?.events
          if let verdict = issue.verdict, let log, log == previousLog {
            let same = issue.rewording {
              $0.replacingOccurrences(of: verdict.transcript, with: "(same events as above)")
            }
            lines += indent(same.description, by: 6)
          } else {
            lines += indent(issue.description, by: 6)
          }
          previousLog = log
        }
      }
    }
    if let line = raceLine(report) {
      lines.append("")
      lines.append(line)
    }
    if report.timeLimit != nil {
      // `swift test` would stop at the first stuck check (the kit's
      // watchdog), so it is not suggested here.
      lines.append("")
      lines.append(
        "The chapter's run did not finish, so each check it had not finished ran again on its own."
          + " Look first for an endless loop, or a lock or semaphore held across an await, in your code;"
          + " `swift test` would stop at the first check that is stuck.")
    } else if report.crash != nil {
      lines.append("")
      lines.append(
        "The chapter's run did not finish, so each check it had not finished ran again on its own. Run "
          + style.command("swift test --filter \(chapter.testModule)") + " to see the whole output.")
    }
    lines.append("")
    let undecided = report.scored.filter { $0.status == .undecided }.count
    lines.append(
      "\(report.passed) of \(report.total) checks pass."
        + (undecided > 0 ? style.yellow(" \(undecided) could not decide: neither passed nor failed.") : "")
        + (report.passedAsShipped > 0
          ? style.dim(" The untouched starter passes \(report.passedAsShipped).") : ""))
    if report.state == .done {
      lines.append(
        style.green("Chapter \(chapter.paddedNumber) is done!") + " Compare with the reference: "
          + workshop("solution \(chapter.paddedNumber)") + ". Then run " + workshop("")
          + " to see what is next.")
    } else if variant == .solutions {
      lines.append(
        "The reference solution fails: fix \(style.cyan(workspace.exerciseFiles(chapter, in: variant))).")
    } else {
      lines.append(
        "Edit \(style.cyan(workspace.exerciseFiles(chapter, in: variant))) and \(watching ? "save" : "run this again"). Stuck? "
          + workshop("hint \(chapter.paddedNumber)"))
    }
    return lines.joined(separator: "\n")
  }

  // MARK: - Helpers

  /// The learner's `file:line:col` for a failing check, on a line of its
  /// own under the check's name (editors' problem matchers read the pair).
  private func pointer(_ found: CodePointer.Found?) -> [String] {
    guard let found else { return [] }
    return ["      → " + style.cyan(found.location + ":1") + style.dim(" (\(found.what))")]
  }

  private func state(_ report: ChapterReport) -> String {
    let state = report.state
    switch state {
    case .done: return style.green("done ✓")
    case .inProgress: return style.yellow("in progress")
    case .notStarted:
      // The starter passes some checks: say so, or "7/15 not started" reads as a contradiction.
      return "not started" + (report.passed > 0 ? style.dim(" (\(report.passed) pass as shipped)") : "")
    case .doesNotCompile:
      return style.red(state.rawValue) + (errorLocation(report).map { ": " + style.cyan($0) } ?? "")
    case .crashed, .timedOut, .noChecks, .raceCheckNotRun, .notHandedIn:
      return style.red(state.rawValue)
    }
  }

  /// What the table adds for a race-checked chapter: where its ThreadSanitizer pass is.
  private func raceNote(_ report: ChapterReport) -> String {
    switch report.raceCheck {
    case nil, .notRun?: ""
    case .waiting?: style.dim(" · TSan once all pass")
    case .clean?: style.dim(" · TSan: no race")
    case .failed?: style.red(" · fails under TSan")
    }
  }

  /// What the table adds for a chapter whose checks the learner writes,
  /// while grading them against the component's versions waits for a start.
  private func versionsNote(_ report: ChapterReport) -> String {
    report.versionsPending ? style.dim(" · versions once started") : ""
  }

  /// The line `check` prints under a race-checked chapter's checks.
  private func raceLine(_ report: ChapterReport) -> String? {
    switch report.raceCheck {
    case nil: nil
    case .waiting?:
      style.dim(
        "Once every check passes, they run again under ThreadSanitizer: the chapter is done when it finds no data race."
      )
    case .clean?: style.mark(true) + " No data race: every check passed again under ThreadSanitizer."
    case .failed?: style.mark(false) + " Under ThreadSanitizer, the checks marked ✗ above failed."
    case .notRun(let reason)?: style.mark(false) + " The race check could not run: \(reason)."
    }
  }

  private func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
  }

  private func indent(_ text: String, by count: Int) -> [String] {
    let prefix = String(repeating: " ", count: count)
    return text.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }
  }

  private func firstLine(_ text: String?) -> String {
    text?.split(separator: "\n").first.map(String.init) ?? ""
  }
}
