import CheckTranscript
import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

private func chapter(_ number: Int, _ title: String, fails: [String]) -> Curriculum.Chapter {
  Curriculum.Chapter(
    number: number, name: title.replacingOccurrences(of: " ", with: ""), title: title, summary: "Summary.",
    files: ["Code.swift"], hints: [], starterFails: fails)
}

private let workspace = Workspace(
  root: URL(fileURLWithPath: "/tmp/w"),
  curriculum: Curriculum(title: "Workshop", chapters: []))

private let report = Report(style: Style(colored: false), workspace: workspace)

extension Report {
  /// The table as the runner prints it, with the chapter the learner is on
  /// found as the runner finds it.
  fileprivate func progress(_ reports: [ChapterReport], reused: Set<Int> = []) -> String {
    progress(reports, reused: reused, current: Whereabouts(workspace: workspace).current(reports))
  }
}

@Suite("Reports")
struct ReportTests {
  @Test("A chapter's state follows from its checks and the declared starter failures")
  func states() {
    let first = chapter(1, "One", fails: ["b"])
    let pass = CheckResult(id: "a", name: "a", status: .passed)
    let failB = CheckResult(id: "b", name: "b", status: .failed)
    let failA = CheckResult(id: "a", name: "a", status: .failed)
    #expect(ChapterReport(chapter: first, checks: [pass, failB]).state == .notStarted)
    #expect(ChapterReport(chapter: first, checks: [failA, failB]).state == .inProgress)
    #expect(ChapterReport(chapter: first, checks: [pass]).state == .done)
    #expect(ChapterReport(chapter: first).state == .noChecks)
    #expect(ChapterReport(chapter: first, checks: [pass], crash: "x").state == .crashed)
    #expect(ChapterReport(chapter: first, compileErrors: ["e"]).state == .doesNotCompile)
    #expect(ChapterReport(chapter: first, timeLimit: 60).state == .timedOut)
  }

  @Test(
    "The table prints each row once it and every row above it are graded, in course order, whatever order they finish in"
  )
  func rowsAsGraded() {
    let chapters = (1...4).map { chapter($0, "Chapter \($0)", fails: []) }
    let printed = Mutex<[String]>([])
    let rows = TableRows(chapters: chapters, header: "header") { line in
      printed.withLock { $0.append(line) }
    } row: {
      "row \($0.chapter.number)"
    }
    let graded = { (number: Int) in ChapterReport(chapter: chapters[number - 1]) }

    rows.take(graded(2))
    #expect(printed.withLock { $0 } == [], "row 2 waits for row 1")
    rows.take(graded(1))
    #expect(printed.withLock { $0 } == ["header", "row 1", "row 2"])
    rows.take(graded(4))
    rows.take(graded(1))
    #expect(printed.withLock { $0 } == ["header", "row 1", "row 2"], "a row is printed once")
    rows.finish([graded(1), graded(2), graded(3), graded(4)])
    #expect(printed.withLock { $0 } == ["header", "row 1", "row 2", "row 3", "row 4"])
  }

  @Test("A table whose rows all come at the end prints its header, then its rows")
  func rowsAtTheEnd() {
    let chapters = (1...2).map { chapter($0, "Chapter \($0)", fails: []) }
    let printed = Mutex<[String]>([])
    let rows = TableRows(chapters: chapters, header: "header") { line in
      printed.withLock { $0.append(line) }
    } row: {
      "row \($0.chapter.number)"
    }
    rows.finish(chapters.map { ChapterReport(chapter: $0) })
    #expect(printed.withLock { $0 } == ["header", "row 1", "row 2"])
    let reports = chapters.map { ChapterReport(chapter: $0) }
    let pieces =
      [report.progressHeader] + reports.map(report.progressRow) + [
        report.progressFooter(reports, current: Whereabouts(workspace: workspace).current(reports))
      ]
    #expect(report.progress(reports) == pieces.joined(separator: "\n"))
  }

  @Test(
    "An untouched chapter's items against the versions show the starter's result as shipped, and the chapter is not started, never done"
  )
  func versionsPending() {
    var writes = chapter(
      13, "Testing", fails: [Grader.waitsItem.name, "Catches a field that asks too early"])
    writes.component = "Field"
    let pending = { (id: String, name: String) in Grader.versionAsShipped(id: id, name: name, of: writes) }
    var checks = [
      CheckResult(id: "T.a()", name: "my check", status: .passed),
      CheckResult(id: Grader.outsideItem.id, name: Grader.outsideItem.name, status: .passed),
      CheckResult(id: Grader.waitsItem.id, name: Grader.waitsItem.name, status: .failed, issues: ["sleeps"]),
      pending("workshop.variant.early", "Catches a field that asks too early"),
      pending("workshop.variant.slow", "Accepts a slow field"),
    ]
    #expect(
      checks[3].status == .failed && checks[4].status == .passed, "as curriculum.json records the starter")
    let untouched = ChapterReport(chapter: writes, checks: checks)
    #expect(untouched.versionsPending)
    #expect(untouched.state == .notStarted)
    // The same count as `check` gives once it has graded the versions.
    #expect(untouched.passed == 3 && untouched.passedAsShipped == 3 && untouched.total == 5)
    var graded = checks
    graded[3] = CheckResult(
      id: "workshop.variant.early", name: checks[3].name, status: .failed, issues: ["missed"])
    graded[4] = CheckResult(id: "workshop.variant.slow", name: checks[4].name, status: .passed)
    let checked = ChapterReport(chapter: writes, checks: graded)
    #expect(checked.passed == untouched.passed && checked.passedAsShipped == untouched.passedAsShipped)
    #expect(checked.state == untouched.state)
    #expect(report.progress([untouched]).contains("versions once started"))
    #expect(report.progress([untouched]).contains("3/5"))
    // Every graded item passing does not make the chapter done while its versions wait.
    checks[2].status = .passed
    checks[2].issues = []
    checks[3].status = .passed
    #expect(ChapterReport(chapter: writes, checks: checks).state == .inProgress)
    // An item skipped for another reason is no pending version.
    checks[3] = CheckResult(
      id: "workshop.variant.early", name: checks[3].name, status: .skipped,
      issues: ["Graded once every check of yours passes on the real component, every time."])
    checks[4] = CheckResult(
      id: "workshop.variant.slow", name: checks[4].name, status: .skipped, issues: checks[3].issues)
    #expect(!ChapterReport(chapter: writes, checks: checks).versionsPending)
  }

  @Test(
    "The table leaves the versions for later only in a chapter of learner checks whose files are the shipped ones"
  )
  func untouchedLearnerChecks() throws {
    let root = try TemporaryFolder.shared.makeFolder("untouched-learner-checks")
    defer { try? FileManager.default.removeItem(at: root) }
    let shipped = "@Test func first() {}\n"
    func chapter(_ number: Int, _ name: String, component: String?, recorded: Bool) -> Curriculum.Chapter {
      var chapter = Curriculum.Chapter(
        number: number, name: name, title: name, summary: "", files: ["Checks.swift"], hints: [],
        starterFails: [], component: component)
      if recorded { chapter.starter = ["Checks.swift": ContentHash.of(Data(shipped.utf8))] }
      return chapter
    }
    let chapters = [
      chapter(1, "Untouched", component: "Field", recorded: true),
      chapter(2, "Edited", component: "Field", recorded: true),
      chapter(3, "Unrecorded", component: "Field", recorded: false),
      chapter(4, "Plain", component: nil, recorded: true),
    ]
    let workspace = Workspace(root: root, curriculum: Curriculum(title: "Course", chapters: chapters))
    for chapter in chapters {
      let folder = workspace.url(workspace.codeFolder(chapter, .chapters))
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let text = chapter.number == 2 ? shipped + "@Test func mine() {}\n" : shipped
      try text.write(to: folder.appendingPathComponent("Checks.swift"), atomically: true, encoding: .utf8)
    }
    #expect(Starters(workspace: workspace).untouchedLearnerChecks() == [1])
  }

  @Test(
    "A chapter whose checks the learner writes counts them as one item, in the table as in a class's grades")
  func ownChecksAreOneItem() {
    var writes = chapter(13, "Testing", fails: ["Catches a field that asks too early"])
    writes.component = "Field"
    let checks = [
      CheckResult(id: "T.a()", name: "my first check", status: .passed),
      CheckResult(id: "T.b()", name: "my second check", status: .failed, issues: ["boom"]),
      CheckResult(id: "T.c()", name: "my third check", status: .passed),
      CheckResult(id: Grader.outsideItem.id, name: Grader.outsideItem.name, status: .passed),
      CheckResult(id: Grader.waitsItem.id, name: Grader.waitsItem.name, status: .passed),
      CheckResult(
        id: "workshop.variant.asks-too-early", name: "Catches a field that asks too early", status: .skipped),
    ]
    let chapterReport = ChapterReport(chapter: writes, checks: checks)
    #expect(
      chapterReport.scored.map(\.id) == [
        Grader.outsideItem.id, Grader.waitsItem.id, Grader.ownChecksItem.id,
        "workshop.variant.asks-too-early",
      ])
    #expect(chapterReport.passed == 2 && chapterReport.total == 4)
    #expect(chapterReport.scored[2].status == .failed)
    #expect(chapterReport.scored[2].issues.first?.description.contains("2 of 3 of your checks pass") == true)
    #expect(chapterReport.passedAsShipped == 3, "all but the one declared failing as shipped")
    var raced = ChapterReport(
      chapter: Curriculum.Chapter(
        number: 6, name: "Six", title: "Six", summary: "", files: ["Code.swift"], hints: [],
        starterFails: ["a"],
        raceChecked: true, starterRaces: ["b"]),
      checks: [
        CheckResult(id: "a", name: "a", status: .failed), CheckResult(id: "b", name: "b", status: .passed),
        CheckResult(id: "c", name: "c", status: .passed),
      ])
    raced.raceCheck = .waiting
    #expect(
      raced.passedAsShipped == 2 && raced.passed == 2, "a race failure is not seen before the race check")
    raced.raceCheck = .failed
    #expect(raced.passedAsShipped == 1, "once the race check has run, it is")
    #expect(report.progress([chapterReport]).contains("2/4"))
    let items = ClassGrader.Items(byChapter: [
      13: [
        Grader.outsideItem, Grader.waitsItem, Grader.ownChecksItem,
        ExpectedCheck(id: "workshop.variant.asks-too-early", name: "Catches a field that asks too early"),
      ]
    ])
    let grade = SubmissionGrade(
      name: "ada", source: "ada", reports: [chapterReport], notGraded: nil, ignored: [], flags: [],
      seconds: 1,
      reused: 0)
    let result = ClassResult(grade, items: items, course: workspace)
    #expect(result.passed == chapterReport.passed && result.total == chapterReport.total)
  }

  @Test("The progress table shows every chapter, the totals and the next step")
  func progressTable() {
    let reports = [
      ChapterReport(
        chapter: chapter(1, "One", fails: []), checks: [CheckResult(id: "a", name: "a", status: .passed)]),
      ChapterReport(
        chapter: chapter(2, "Two", fails: ["x"]),
        checks: [
          CheckResult(id: "x", name: "Sends one request", status: .failed, issues: ["boom"]),
          CheckResult(id: "y", name: "y", status: .passed),
        ]),
      ChapterReport(
        chapter: chapter(3, "Three", fails: []),
        compileErrors: ["Chapters/03-Three/Code.swift:1:1: error: no"]),
    ]
    let text = report.progress(reports)
    #expect(text.contains("01  One"))
    #expect(text.contains("1/1      done ✓"))
    #expect(text.contains("1/2      in progress"))
    #expect(text.contains("–        does not compile"))
    #expect(
      text.contains("Progress: 1 of 3 chapters done · 2 of 3 checks pass (the untouched starters pass 3)"))
    #expect(text.contains("Next: chapter 02, Two\n  ✗ Sends one request"))
    #expect(
      text.contains(
        "Open Chapters/02-Two/Code.swift, then run `swift run workshop watch 02`: it grades the chapter again on every save."
      ))
    #expect(!text.contains("\u{1B}["), "no escape codes without colour")
  }

  @Test("The table says which chapters were not run again because nothing changed, naming the fewer")
  func reusedResults() {
    let reports = (1...3).map { number in
      ChapterReport(
        chapter: chapter(number, "C\(number)", fails: []),
        checks: [CheckResult(id: "a", name: "a", status: .passed)])
    }
    #expect(!report.progress(reports).contains("did not run again"))
    #expect(
      report.progress(reports, reused: [1, 2, 3]).contains(
        "Nothing changed since the last grading, so nothing ran again; `swift run workshop check NN` grades a chapter anew."
      ))
    #expect(
      report.progress(reports, reused: [1, 3]).contains(
        "Graded now: 02; the other chapters are unchanged since their last grading, so they did not run again"
      ))
    #expect(
      report.progress(reports, reused: [3]).contains(
        "Chapters 03: unchanged since their last grading, so they did not run again"))
  }

  @Test("When everything is done, the next step says so")
  func allDone() {
    let done = ChapterReport(
      chapter: chapter(1, "One", fails: []), checks: [CheckResult(id: "a", name: "a", status: .passed)])
    #expect(Whereabouts(workspace: workspace).current([done]) == nil)
    #expect(report.next(nil).contains("Every chapter is done."))
  }

  @Test("A chapter's detail shows each failure's explanation under its check")
  func detail() {
    let detail = report.chapterDetail(
      ChapterReport(
        chapter: chapter(2, "Two", fails: []),
        checks: [
          CheckResult(
            id: "x", name: "Sends one request", status: .failed, issues: ["Expected: 1\nActual:   2"]),
          CheckResult(id: "y", name: "Keeps the list", status: .passed),
        ]))
    #expect(
      detail.contains("  ✗ Sends one request\n      Expected: 1\n      Actual:   2\n  ✓ Keeps the list"))
    #expect(detail.contains("1 of 2 checks pass."))
    #expect(detail.contains("swift run workshop hint 02"))
  }

  @Test("A failing check's place in the learner's code, found before, is shown on a line of its own under it")
  func detailWithPointer() {
    let failing = ChapterReport(
      chapter: chapter(2, "Two", fails: []),
      checks: [
        CheckResult(
          id: "x", name: "Sends one request", status: .failed, issues: ["Expected: 1\nActual:   2"]),
        CheckResult(id: "y", name: "Keeps the list", status: .passed),
      ])
    let detail = report.chapterDetail(
      failing, pointers: ["x": (location: "Chapters/02-Two/Two.swift:7", what: "the TODO there")])
    #expect(
      detail.contains(
        "  ✗ Sends one request\n      → Chapters/02-Two/Two.swift:7:1 (the TODO there)\n      Expected: 1"))
    #expect(!report.chapterDetail(failing).contains("→"), "Without pointers, none is made up")
  }

  @Test("Colour is used only on a terminal and never with NO_COLOR")
  func colour() {
    #expect(Style.forStandardOutput(environment: ["NO_COLOR": "1"]).colored == false)
    #expect(Style(colored: true).green("ok") == "\u{1B}[32mok\u{1B}[0m")
    #expect(Style(colored: false).green("ok") == "ok")
  }
}

@Suite("Reports: one chapter in detail")
struct ChapterDetailTests {
  @Test("A check's event log is printed once, however many of its expectations failed")
  func sharedLogPrintedOnce() {
    let log: [RecordedEvent] = [.call("user typed \"sw\"", from: .caller("user"), label: "typed \"sw\"")]
    let (first, second) = (
      Verdict(behaviour: "First", events: log), Verdict(behaviour: "Second", events: log)
    )
    /// The detail of a chapter whose one check failed with `issues`.
    func detail(of issues: [CheckIssue]) -> String {
      report.chapterDetail(
        ChapterReport(
          chapter: chapter(4, "Four", fails: []),
          checks: [CheckResult(id: "x", name: "Stops", status: .failed, issues: issues)]))
    }
    let shared = detail(of: [
      CheckIssue(first.text, location: "T.swift:1", verdict: first),
      CheckIssue(second.text, location: "T.swift:2", verdict: second),
    ])
    #expect(shared.components(separatedBy: "1. user typed").count == 2, "\(shared)")
    // What the grader put before a verdict stays.
    let raced = detail(of: [
      CheckIssue(first.text, verdict: first),
      CheckIssue("Under ThreadSanitizer (the race-check build):\n" + second.text, verdict: second),
    ])
    #expect(
      raced.contains(
        "Under ThreadSanitizer (the race-check build):\n      Second\n      (same events as above)"))
    #expect(shared.contains("Second\n      (same events as above)"), "\(shared)")
    #expect(!shared.contains("T.swift"), "a failure names a file of the checks: \(shared)")
  }

  @Test("A chapter with several files names all of them")
  func severalFiles() {
    var two = chapter(9, "Nine", fails: [])
    two.files = ["A.swift", "B.swift"]
    #expect(workspace.exerciseFiles(two) == "Chapters/09-Nine/ (A.swift, B.swift)")
    #expect(workspace.exerciseFiles(two, in: .solutions) == "Solutions/09-Nine/ (A.swift, B.swift)")
  }

  @Test("An exit test's crash is said in words, in Swift Testing 6.3's wording and in 6.2's")
  func exitTestCrash() {
    let crashed = "Expected the code to keep running; the process crashed (SIGILL)."
    // 6.3 names the signal.
    #expect(EventStream.exitTestCrash("Expectation failed: .success → .signal(SIGILL → 4)") == crashed)
    // 6.2 gives the number: this platform's own numbering names it.
    #expect(EventStream.exitTestCrash("Expectation failed: .success → .signal(\(SIGILL))") == crashed)
    #expect(
      EventStream.exitTestCrash("Expectation failed: .success → .signal(\(SIGTRAP))")
        == "Expected the code to keep running; the process crashed (SIGTRAP).")
    #expect(EventStream.exitTestCrash("Expectation failed: .success → .signal()") == nil)
    #expect(EventStream.exitTestCrash("Expectation failed: 1 == 2") == nil)
  }
}

@Suite("Status lines in a log")
struct StatusThrottleTests {
  @Test("A log gets the first line of each kind of step, then one every ten seconds")
  func throttle() {
    var throttle = StatusThrottle()
    let start = ContinuousClock.now
    let steps: [(String, Int)] = [
      ("Building 1/40", 0), ("Building 2/40", 1), ("Building 9/40", 9), ("Building 12/40", 11),
      ("Grading 1/13", 12), ("Grading 2/13", 13), ("Building 40/40", 14),
    ]
    let shown = steps.map { throttle.shouldShow($0.0, at: start + .seconds($0.1)) }
    #expect(shown == [true, false, false, true, true, false, true])
  }

  @Test("A failure in the same words as one above is named once, not repeated")
  func repeatedFailureShownOnce() {
    let words = CheckIssue(
      "refresh() never returned: it was stopped after 1 s.\nRecorded events:\n  1. refresh()")
    let detail = report.chapterDetail(
      ChapterReport(
        chapter: chapter(1, "One", fails: []),
        checks: [
          CheckResult(id: "a", name: "Loads at once", status: .failed, issues: [words]),
          CheckResult(id: "b", name: "Shows each result", status: .failed, issues: [words]),
          CheckResult(id: "c", name: "Shows the banner", status: .failed, issues: ["Expected: banner"]),
          CheckResult(id: "d", name: "Returns when done", status: .interrupted, issues: [words]),
        ]))
    #expect(detail.components(separatedBy: "refresh() never returned").count == 2, "\(detail)")
    #expect(detail.contains("Shows each result\n      Failed the same way as “Loads at once” above."))
    #expect(detail.contains("Returns when done\n      Failed the same way as “Loads at once” above."))
    #expect(detail.contains("Expected: banner"))
  }

  @Test(
    "A parameterized check shows its first case's failures in full and names the other cases, in their order")
  func parameterizedCases() {
    let issues = [5, 0, 1].map { number in
      var issue = CheckIssue("With chunk → \(number): Reads no other chunk")
      issue.testCase = "chunk → \(number)"
      return issue
    }
    let detail = report.chapterDetail(
      ChapterReport(
        chapter: chapter(3, "Three", fails: []),
        checks: [CheckResult(id: "p", name: "Stops within one chunk", status: .failed, issues: issues)]))
    #expect(detail.contains("With chunk → 0: Reads no other chunk"))
    #expect(!detail.contains("With chunk → 5:"))
    #expect(detail.contains("And 2 more cases failed: chunk → 1; chunk → 5."), "\(detail)")
  }
}
