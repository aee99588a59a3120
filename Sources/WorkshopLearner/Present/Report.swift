import CheckTranscript
import Foundation
import WorkshopCore

/// Renders grading results as text for learners and instructors.
struct Report: Sendable {
  var style: Style
  var workspace: Workspace
  /// What was graded: the learner's chapters or the solutions.
  var variant: Variant
  /// The language of the report's own words (see ``Language``).
  var words: Language

  init(style: Style, workspace: Workspace, variant: Variant = .chapters, words: Language = .english) {
    self.style = style
    self.workspace = workspace
    self.variant = variant
    self.words = words
    course = CourseText(workspace: workspace, language: words)
  }

  /// The course's own text (titles, summaries) in the report's language.
  var course: CourseText

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
    max(7, workspace.curriculum.chapters.map { Columns.width(of: course.title($0)) }.max() ?? 0)
  }

  /// The table's title and column names.
  var progressHeader: String {
    [
      style.bold(course.courseTitle) + style.dim(words(" · progress", " · 进度")), "",
      "  "
        + style.dim(
          pad("#", 4) + pad(words("Chapter", "章节"), titleWidth + 2) + pad(words("Checks", "检查"), 9)
            + words("State", "状态")),
    ].joined(separator: "\n")
  }

  /// One chapter's row of the table.
  func progressRow(_ report: ChapterReport) -> String {
    let checks = report.checks.isEmpty ? "–" : "\(report.passed)/\(report.total)"
    return "  " + pad(report.chapter.paddedNumber, 4) + pad(course.title(report.chapter), titleWidth + 2)
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
      words(
        "Progress: \(done) of \(reports.count) chapters done · \(passed) of \(total) checks pass",
        "进度：\(reports.count) 章完成 \(done) 章 · \(total) 项检查通过 \(passed) 项")
        + style.dim(words(" (the untouched starters pass \(shipped))", "（未改动的初始代码通过 \(shipped) 项）")))
    let kept = reports.filter { reused.contains($0.chapter.number) }.map(\.chapter.paddedNumber)
    let graded = reports.filter { !reused.contains($0.chapter.number) }.map(\.chapter.paddedNumber)
    if !kept.isEmpty {
      let what =
        graded.isEmpty
        ? words(
          "Nothing changed since the last grading, so nothing ran again",
          "自上次评分以来没有任何改动，所以没有重新运行")
        : graded.count <= kept.count
          ? words(
            "Graded now: \(graded.joined(separator: ", ")); the other chapters are unchanged since their last grading, so they did not run again",
            "本次评分：\(graded.joined(separator: "、"))；其余各章自上次评分以来没有改动，没有重新运行")
          : words(
            "Chapters \(kept.joined(separator: ", ")): unchanged since their last grading, so they did not run again",
            "第 \(kept.joined(separator: "、")) 章：自上次评分以来没有改动，没有重新运行")
      lines.append(
        style.dim(
          what
            + words(
              "; `swift run workshop check NN` grades a chapter anew.",
              "；`swift run workshop check NN` 会重新评分一章。")))
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
      focus == nil
      ? words(
        "Chapters: \(done) of \(others.count) done · \(passed) of \(total) checks pass in all",
        "各章：\(others.count) 章完成 \(done) 章 · 共 \(total) 项检查通过 \(passed) 项")
      : words(
        "Other chapters: \(done) of \(others.count) done · \(passed) of \(total) checks pass in all",
        "其他各章：\(others.count) 章完成 \(done) 章 · 共 \(total) 项检查通过 \(passed) 项")
    let broken = others.filter { $0.state == .doesNotCompile }
    if !broken.isEmpty {
      line +=
        " · " + style.red(words("does not compile: ", "编译失败："))
        + broken.map { $0.chapter.paddedNumber + (errorLocation($0).map { " (\($0))" } ?? "") }
        .joined(separator: words(", ", "、"))
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
      return style.green(words("Every chapter is done. Well played!", "所有章节都完成了，干得漂亮！"))
        + words(
          " Compare your code with Solutions/, or read the slides in Slides/ again.",
          "可以把你的代码和 Solutions/ 对照，或者再看一遍 Slides/ 里的幻灯片。")
    }
    let chapter = report.chapter
    var lines = [
      style.bold(words("Next:", "下一步：")) + words(" chapter ", "第 ") + chapter.paddedNumber
        + words(", ", " 章，") + course.title(chapter)
    ]
    switch report.state {
    case .doesNotCompile:
      lines.append(words("  It does not compile yet:", "  它还编译不过："))
      lines += indent(report.compileErrors.first ?? "", by: 4)
    case .crashed:
      lines.append(words("  Its checks crashed: ", "  它的检查崩溃了：") + firstLine(report.crash))
      if let check = report.checks.first(where: { $0.status == .interrupted }) {
        lines.append(words("  while running: ", "  当时在运行：") + check.name)
      }
    case .timedOut:
      let stuck = report.checks.filter { $0.status == .interrupted }.map(\.name)
      let limit = Grader.seconds(report.timeLimit ?? 0)
      let named = stuck.prefix(2).joined(separator: ", ") + (stuck.count > 2 ? ", …" : "")
      lines.append(
        stuck.isEmpty
          ? words("  Its checks did not finish within \(limit).", "  它的检查没有在 \(limit) 内结束。")
          : stuck.count == 1
            ? words(
              "  A check does not finish on its own within \(limit): \(named).",
              "  有 1 项检查单独运行也没有在 \(limit) 内结束：\(named)。")
            : words(
              "  \(stuck.count) checks do not finish on their own within \(limit): \(named).",
              "  有 \(stuck.count) 项检查单独运行也没有在 \(limit) 内结束：\(named)。"))
    case .raceCheckNotRun:
      if case .notRun(let reason)? = report.raceCheck {
        lines.append(
          words(
            "  Every check passes, but the race check could not run: \(reason).",
            "  所有检查都通过了，但竞争检查没能运行：\(reason)。"))
      }
    default:
      if let check = report.failing.first {
        lines.append("  " + style.mark(false) + " " + check.name)
      }
    }
    lines.append(
      words(
        "  Open \(style.cyan(workspace.exerciseFiles(chapter, in: variant))), then run "
          + workshop("watch \(chapter.paddedNumber)") + ": it grades the chapter again on every save.",
        "  打开 \(style.cyan(workspace.exerciseFiles(chapter, in: variant)))，然后运行 "
          + workshop("watch \(chapter.paddedNumber)") + "：每次保存都会重新评分这一章。"))
    return lines.joined(separator: "\n")
  }

  // MARK: - One chapter (`workshop check`)

  /// Every check of one chapter; failing ones with what was expected and
  /// what happened, and where in the learner's code each points
  /// (`pointers`, by check ID: see ``CodePointer``).
  func chapterDetail(
    _ report: ChapterReport, pointers: [String: CodePointer.Found] = [:], watching: Bool = false
  ) -> String {
    let again =
      watching
      ? words("save", "保存")
      : words("run ", "重新运行 ") + workshop("check \(report.chapter.paddedNumber)")
        + words(" again", "")
    let chapter = report.chapter
    var lines = [
      style.bold(
        words("Chapter \(chapter.paddedNumber) · ", "第 \(chapter.paddedNumber) 章 · ") + course.title(chapter))
        + style.dim(words("  (\(report.state.label(words)))", "（\(report.state.label(words))）")),
      style.dim(course.summary(chapter)), "",
    ]
    if !report.compileErrors.isEmpty {
      let refused = report.compileErrors.contains { $0.hasSuffix(Builder.refusal) }
      lines.append(
        style.red(
          refused
            ? words(
              "It is not built: it holds what no exercise needs, and a chapter may not.",
              "没有构建：其中有任何练习都用不到、章节里也不允许出现的内容。")
            : words("It does not compile:", "编译失败：")))
      for error in report.compileErrors { lines += indent(error, by: 2) }
      lines.append("")
      // Files that are gone are restored, not fixed.
      let gone = report.compileErrors.allSatisfy { $0.contains(Builder.resetCommand(chapter)) }
      if gone {
        // SwiftPM reuses its evaluation of Package.swift, made while the
        // files were there, and warns about the target it finds empty.
        lines.append(
          style.dim(
            words(
              "If SwiftPM warned that source files for target \(chapter.codeModule) should be under Sources/, that is the same missing code: the warning goes once it is back.",
              "如果 SwiftPM 警告 target \(chapter.codeModule) 的源文件应放在 Sources/ 下，说的是同一份缺失的代码：代码恢复后警告就会消失。"
            )))
      }
      let files = style.cyan(workspace.exerciseFiles(chapter, in: variant))
      lines.append(
        gone
          ? words(
            "Run \(style.cyan("`\(Builder.resetCommand(chapter))`")) to get the chapter's files back (what is there now is backed up first), then \(again).",
            "运行 \(style.cyan("`\(Builder.resetCommand(chapter))`")) 取回这一章的文件（现有内容会先备份），然后\(again)。")
          : refused
            ? words(
              "Remove what is named above from \(files), then \(again).", "从 \(files) 中删掉上面指出的内容，然后\(again)。")
            : words("Fix the error above in \(files), then \(again).", "修正 \(files) 中上面的错误，然后\(again)。")
      )
      return lines.joined(separator: "\n")
    }
    // A failure whose words are those of one shown above (a chapter whose
    // code never returns fails many checks alike) is named, not repeated.
    var shown: [String: String] = [:]
    for check in report.checks {
      if check.status == .failed || check.status == .interrupted, !check.issues.isEmpty {
        let said = check.issues.map(\.description).joined(separator: "\n")
        if let first = shown[said] {
          lines.append("  " + style.mark(false) + " " + check.name)
          lines += pointer(pointers[check.id])
          lines.append(
            "      " + style.dim(words("Failed the same way as “\(first)” above.", "失败方式与上面的 “\(first)” 相同。"))
          )
          continue
        }
        shown[said] = check.name
      }
      switch check.status {
      case .passed:
        lines.append("  " + style.mark(true) + " " + check.name)
      case .skipped:
        lines.append("  " + style.dim("- \(check.name)" + words(" (skipped)", "（已跳过）")))
      case .undecided:
        // Neither passed nor failed: the machine decided nothing.
        lines.append(
          "  " + style.yellow("?") + " " + check.name + style.yellow(words("  (undecided)", "（未判定）")))
        lines.append(
          words(
            "      The machine was too busy for this check's threads to meet, even run again alone"
              + " with more time: nothing was decided about your code. Run it again when the machine is quieter.",
            "      机器太忙，这项检查的线程没能会合，单独放宽时间重跑也一样：关于你的代码什么也没有判定。"
              + "等机器空闲些再运行一次。")
        )
      case .interrupted:
        lines.append(
          "  " + style.mark(false) + " " + check.name + style.red(words("  (no result)", "（没有结果）")))
        lines += pointer(pointers[check.id])
        for issue in check.issues { lines += indent(issue.words(words), by: 6) }
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
                  words(
                    "And \(otherCases.count) more cases failed: \(otherCases.joined(separator: "; ")).",
                    "另有 \(otherCases.count) 个用例失败：\(otherCases.joined(separator: "；"))。"))
            )
          }
        }
        for issue in shownIssues {
          // Several expectations of one check usually share its event log:
          // print it once.
          let log = issue.verdict?.events
          if let verdict = issue.verdict, let log, log == previousLog {
            let same = issue.rewording {
              $0.replacingOccurrences(
                of: verdict.transcript, with: words("(same events as above)", "（事件同上）"))
            }
            lines += indent(same.words(words), by: 6)
          } else {
            lines += indent(issue.words(words), by: 6)
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
        words(
          "The chapter's run did not finish, so each check it had not finished ran again on its own."
            + " Look first for an endless loop, or a lock or semaphore held across an await, in your code;"
            + " `swift test` would stop at the first check that is stuck.",
          "这一章的运行没有结束，所以每项没跑完的检查都单独重跑了一次。"
            + "先在你的代码里找死循环，或者跨 await 持有的锁或信号量；"
            + "`swift test` 会停在第一项卡住的检查上。"))
    } else if report.crash != nil {
      lines.append("")
      lines.append(
        words(
          "The chapter's run did not finish, so each check it had not finished ran again on its own. Run "
            + style.command("swift test --filter \(chapter.testModule)") + " to see the whole output.",
          "这一章的运行没有结束，所以每项没跑完的检查都单独重跑了一次。运行 "
            + style.command("swift test --filter \(chapter.testModule)") + " 可以看到完整输出。"))
    }
    lines.append("")
    let undecided = report.scored.filter { $0.status == .undecided }.count
    lines.append(
      words(
        "\(report.passed) of \(report.total) checks pass.", "\(report.total) 项检查通过 \(report.passed) 项。")
        + (undecided > 0
          ? style.yellow(
            words(
              " \(undecided) could not decide: neither passed nor failed.", "\(undecided) 项未能判定：既不算通过也不算失败。"))
          : "")
        + (report.passedAsShipped > 0
          ? style.dim(
            words(
              " The untouched starter passes \(report.passedAsShipped).",
              "未改动的初始代码通过 \(report.passedAsShipped) 项。"))
          : ""))
    let files = style.cyan(workspace.exerciseFiles(chapter, in: variant))
    if report.state == .done {
      lines.append(
        style.green(words("Chapter \(chapter.paddedNumber) is done!", "第 \(chapter.paddedNumber) 章完成了！"))
          + words(" Compare with the reference: ", "和参考答案对照：")
          + workshop("solution \(chapter.paddedNumber)") + words(". Then run ", "。然后运行 ") + workshop("")
          + words(" to see what is next.", " 看下一步做什么。"))
    } else if variant == .solutions {
      lines.append(words("The reference solution fails: fix \(files).", "参考答案没有通过：修正 \(files)。"))
    } else {
      lines.append(
        (watching
          ? words("Edit \(files) and save. Stuck? ", "修改 \(files) 并保存。卡住了？")
          : words("Edit \(files) and run this again. Stuck? ", "修改 \(files) 后再运行一次。卡住了？"))
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
    case .done: return style.green(state.label(words) + " ✓")
    case .inProgress: return style.yellow(state.label(words))
    case .notStarted:
      // The starter passes some checks: say so, or "7/15 not started" reads as a contradiction.
      return state.label(words)
        + (report.passed > 0
          ? style.dim(words(" (\(report.passed) pass as shipped)", "（初始代码就通过 \(report.passed) 项）")) : "")
    case .doesNotCompile:
      return style.red(state.label(words)) + (errorLocation(report).map { ": " + style.cyan($0) } ?? "")
    case .crashed, .timedOut, .noChecks, .raceCheckNotRun, .notHandedIn:
      return style.red(state.label(words))
    }
  }

  /// What the table adds for a race-checked chapter: where its ThreadSanitizer pass is.
  private func raceNote(_ report: ChapterReport) -> String {
    switch report.raceCheck {
    case nil, .notRun?: ""
    case .waiting?: style.dim(words(" · TSan once all pass", " · 全部通过后跑 TSan"))
    case .clean?: style.dim(words(" · TSan: no race", " · TSan：没有竞争"))
    case .failed?: style.red(words(" · fails under TSan", " · TSan 下失败"))
    }
  }

  /// What the table adds for a chapter whose checks the learner writes,
  /// while grading them against the component's versions waits for a start.
  private func versionsNote(_ report: ChapterReport) -> String {
    report.versionsPending ? style.dim(words(" · versions once started", " · 开始后再跑版本检查")) : ""
  }

  /// The line `check` prints under a race-checked chapter's checks.
  private func raceLine(_ report: ChapterReport) -> String? {
    switch report.raceCheck {
    case nil: nil
    case .waiting?:
      style.dim(
        words(
          "Once every check passes, they run again under ThreadSanitizer: the chapter is done when it finds no data race.",
          "所有检查通过后，会在 ThreadSanitizer 下再跑一遍：没有发现数据竞争，这一章才算完成。")
      )
    case .clean?:
      style.mark(true)
        + words(
          " No data race: every check passed again under ThreadSanitizer.",
          " 没有数据竞争：所有检查在 ThreadSanitizer 下再次通过。")
    case .failed?:
      style.mark(false)
        + words(
          " Under ThreadSanitizer, the checks marked ✗ above failed.", " 在 ThreadSanitizer 下，上面标 ✗ 的检查失败了。")
    case .notRun(let reason)?:
      style.mark(false) + words(" The race check could not run: \(reason).", " 竞争检查没能运行：\(reason)。")
    }
  }

  private func pad(_ text: String, _ width: Int) -> String { Columns.padded(text, to: width) }

  private func indent(_ text: String, by count: Int) -> [String] {
    let prefix = String(repeating: " ", count: count)
    return text.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }
  }

  private func firstLine(_ text: String?) -> String {
    text?.split(separator: "\n").first.map(String.init) ?? ""
  }
}
