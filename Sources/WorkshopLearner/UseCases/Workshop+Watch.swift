import Foundation
import Synchronization
import WorkshopCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `workshop watch`: grade on every save.
extension Workshop {
  func watch(_ given: Curriculum.Chapter?, _ workspace: Workspace, _ options: GradingOptions) -> Int32 {
    let variant = options.variant
    let chapters = workspace.curriculum.chapters
    let watcher = FileWatcher(
      folders: chapters.map { ($0.number, workspace.url(workspace.codeFolder($0, variant)).path) })
    // Keys from a terminal; the screen redrawn only when the output is one too
    // (`watch | tee log` keeps every grading, and no escape codes).
    let screen = Screen(
      keys: Keyboard.isInteractive, redraws: isatty(STDOUT_FILENO) == 1 && console.status != nil)
    var grader = Grader(
      workspace: workspace, variant: variant, timeLimit: options.timeLimit, progress: console.status)
    grader.words = language
    var loop = WatchLoop(workspace: workspace, variant: variant, grader: grader)

    if variant == .chapters { Starters(workspace: workspace).remember() }
    // Everything once, then what changes. A chapter asked for is graded
    // and shown first: the learner waits for it, not for the others.
    var seen = watcher.snapshot()
    if let given {
      console.status?(language("Grading chapter \(given.paddedNumber)", "正在评分第 \(given.paddedNumber) 章"))
      loop.grade([given], quick: false)
      draw(loop, focus: given, screen: screen, workspace: workspace, variant: variant, othersPending: true)
      console.status?(language("Grading the other chapters", "正在评分其他各章"))
      loop.grade(chapters.filter { $0.number != given.number }, reusingBuild: true)
    } else {
      console.status?(language("Grading every chapter", "正在评分所有章节"))
      loop.gradeAll()
    }
    var focus = given ?? loop.current()
    draw(loop, focus: focus, screen: screen, workspace: workspace, variant: variant)

    let quitting = Atomic(false)
    Keyboard.listen { key in
      guard key == "q" || key == "Q" || key == "\u{04}" else { return }
      quitting.store(true, ordering: .releasing)
      Interrupts.quit()
    }
    while let changed = watcher.waitForChange(
      since: &seen,
      shouldStop: {
        quitting.load(ordering: .acquiring) || stopWatching?() == true
      })
    {
      guard !changed.isEmpty else { continue }
      focus = chapters.first { $0.number == changed.last } ?? focus
      // A line, not a status: editors' problem matchers start over on it.
      let numbers = changed.map { String(format: "%02d", $0) }
      console.out(
        language(
          "Grading \(numbers.joined(separator: ", "))…", "正在评分第 \(numbers.joined(separator: "、")) 章…"))
      loop.grade(chapters.filter { changed.contains($0.number) })
      console.clearStatus()
      draw(loop, focus: focus, screen: screen, workspace: workspace, variant: variant)
    }
    return ExitCode.success
  }

  /// The chapter in focus in full, a line on the rest, and how to stop.
  private func draw(
    _ loop: WatchLoop, focus: Curriculum.Chapter?, screen: Screen, workspace: Workspace, variant: Variant,
    othersPending: Bool = false
  ) {
    let report = Report(style: style, workspace: workspace, variant: variant, words: language)
    var lines: [String] = []
    if let error = loop.error {
      lines += ["error: \(error)", ""]
    }
    if let focus, let shown = loop.reports[focus.number] {
      let pointers = CodePointer(workspace: workspace, variant: variant, words: language).pointers(shown)
      lines.append(report.chapterDetail(shown, pointers: pointers, watching: true))
      lines.append("")
    }
    let all = loop.workspace.curriculum.chapters.compactMap { loop.reports[$0.number] }
    lines.append(
      othersPending
        ? style.dim(language("Other chapters: being graded…", "其他各章：评分中…"))
        : report.summaryLine(all, besides: focus))
    let took =
      (loop.lastDuration.map {
        language(
          String(format: " · graded in %.1f s", $0.inSeconds), String(format: " · 评分用时 %.1f 秒", $0.inSeconds))
      } ?? "")
      + (loop.slowPath.map { language(" (built with SwiftPM: \($0))", "（用 SwiftPM 构建：\($0)）") } ?? "")
    lines.append(
      style.dim(
        language("Watching \(variant.folder)/ for saves", "正在监视 \(variant.folder)/ 的保存") + took + " · "
          + (screen.keys ? language("press q to quit", "按 q 退出") : language("Ctrl-C to stop", "按 Ctrl-C 停止")))
    )
    console.clearStatus()
    // On a terminal the screen is redrawn; in a log each grading follows the last.
    console.out((screen.redraws ? "\u{1B}[H\u{1B}[2J" : "\n") + lines.joined(separator: "\n"))
  }
}

/// How `watch` talks to the learner.
struct Screen {
  /// Whether keys can be read (`q` quits).
  var keys: Bool
  /// Whether each grading replaces the last on screen.
  var redraws: Bool
}

/// What `watch` knows between saves: the last report of every chapter and
/// the build they came from.
struct WatchLoop {
  var workspace: Workspace
  var variant: Variant
  var grader: Grader
  /// The latest report of each chapter, by number.
  var reports: [Int: ChapterReport] = [:]
  /// The build the latest grading used; the next edit rebuilds on top of it.
  var build: Build?
  /// Why the last grading could not run, if it could not.
  var error: String?
  /// How long the last grading took.
  var lastDuration: Duration?
  /// The checks `build` holds, once listed.
  var expected: [ExpectedCheck]?
  /// Why the last save was built with SwiftPM rather than on its own.
  var slowPath: String?

  /// Grades every chapter with SwiftPM.
  mutating func gradeAll() {
    grade(workspace.curriculum.chapters, quick: false)
  }

  /// Grades `chapters` after a save: one chapter's edit without SwiftPM when
  /// the build plan allows it (see ``ChapterRebuild``), otherwise with it.
  /// With `reusingBuild`, from the last grading's build as it is (the first
  /// screen's other chapters, built a moment ago with the one shown).
  mutating func grade(_ chapters: [Curriculum.Chapter], quick: Bool = true, reusingBuild: Bool = false) {
    let start = ContinuousClock.now
    defer { lastDuration = ContinuousClock.now - start }
    // As the table does (see `versionsLeftForLater`).
    grader.versionsPending =
      variant == .solutions
      ? [] : Starters(workspace: workspace).versionsLeftForLater(gradingChapters: chapters.count)
    // What the results are kept for, read before grading.
    let record = GradingRecord(grader)
    error = nil
    slowPath = nil
    do {
      var build: Build
      if reusingBuild, let last = self.build {
        build = last
      } else if quick, chapters.count == 1, let last = self.build {
        let rebuild = ChapterRebuild(
          workspace: workspace, variant: variant, environment: Grader.childEnvironment,
          sandbox: grader.buildSandbox)
        switch rebuild.rebuild(chapters[0], after: last) {
        case .built(let rebuilt, let checksRebuilt):
          build = rebuilt
          if checksRebuilt { expected = nil }
        case .compileErrors(let errors):
          keep([ChapterReport(chapter: chapters[0], compileErrors: errors)], record)
          return
        case .unavailable(let reason):
          slowPath = reason
          build = try grader.build()
          expected = nil
        }
      } else {
        build = try grader.build()
        expected = nil
      }
      if expected == nil { expected = try grader.listChecks(build) }
      let graded = try grader.run(chapters, build: build, expected: expected)
      keep(graded, record)
      self.build = build
    } catch {
      self.error = "\(error)"
    }
  }

  /// Keeps the reports, for the next save and the progress table, and what
  /// they tell about the learner's progress.
  private mutating func keep(_ graded: [ChapterReport], _ record: GradingRecord) {
    for report in record.keep(graded) { reports[report.chapter.number] = report }
  }

  /// The chapter the learner is on, from the last grading.
  func current() -> Curriculum.Chapter? {
    let all = workspace.curriculum.chapters.compactMap { reports[$0.number] }
    return Whereabouts(workspace: workspace).current(all)?.chapter
  }
}
