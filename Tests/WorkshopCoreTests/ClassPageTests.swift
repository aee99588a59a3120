import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent()
  .deletingLastPathComponent()

/// A class of `size` generated submissions over the course's real chapters,
/// each chapter's checks named `Check k`: solved, untouched, half done, one
/// that does not compile, one that loops forever, then a mix decided by a
/// fixed pseudo-random sequence (the same class every run).
private func generatedClass(_ size: Int) throws -> (course: Workspace, results: [ClassResult]) {
  var curriculum = try Curriculum.load(from: repository.appendingPathComponent(Curriculum.fileName))
  // As shipped, each chapter fails its even-numbered checks: the untouched
  // submission below is "not started" everywhere.
  for index in curriculum.chapters.indices {
    let chapter = curriculum.chapters[index]
    curriculum.chapters[index].starterFails = (1...(8 + chapter.number % 5)).filter { $0 % 2 == 0 }.map {
      "Check \($0) of \(chapter.title)"
    }
    curriculum.chapters[index].starterRaces = []
  }
  let course = Workspace(root: repository, curriculum: curriculum)
  var items = ClassGrader.Items(byChapter: [:])
  for chapter in curriculum.chapters {
    items.byChapter[chapter.number] = (1...(8 + chapter.number % 5)).map {
      // A chapter where learners write the checks is graded on the course's items.
      ExpectedCheck(
        id: (chapter.writesChecks ? Grader.courseItemPrefix : chapter.testModule + ".") + "check\($0)()",
        name: "Check \($0) of \(chapter.title)")
    }
  }
  var seed: UInt64 = 2026
  func next(_ bound: Int) -> Int {
    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Int((seed >> 33) % UInt64(bound))
  }
  let results = (0..<size).map { index -> ClassResult in
    let kind = index < 5 ? index : 5 + next(4)
    let reports = curriculum.chapters.map { chapter -> ChapterReport in
      let expected = items.byChapter[chapter.number]!
      // A run that crashed or hung leaves the checks it did not finish interrupted.
      let all = { (passing: (Int) -> Bool, unfinished: CheckResult.Status) in
        expected.enumerated().map { offset, check in
          CheckResult(
            id: check.id, name: check.name, status: passing(offset) ? .passed : unfinished,
            issues: passing(offset)
              ? [] : ["Expected the results of the newest query, got \(offset % 3) stale ones."])
        }
      }
      switch kind {
      case 0: return ChapterReport(chapter: chapter, checks: all({ _ in true }, .failed))
      case 1: return ChapterReport(chapter: chapter, checks: all({ $0 % 2 == 0 }, .failed))
      case 2: return ChapterReport(chapter: chapter, checks: all({ _ in chapter.number <= 7 }, .failed))
      case 3 where chapter.number == 4:
        return ChapterReport(
          chapter: chapter,
          compileErrors: [
            "Chapters/04-DebouncedSearch/SearchModel.swift:12:5: error: cannot find 'query' in scope"
          ])
      case 4 where chapter.number == 9:
        return ChapterReport(chapter: chapter, checks: all({ $0 < 2 }, .interrupted), timeLimit: 60)
      case 3, 4: return ChapterReport(chapter: chapter, checks: all({ _ in true }, .failed))
      default:
        switch next(10) {
        case 0:
          var report = ChapterReport(chapter: chapter)
          report.notHandedIn = true
          return report
        case 1:
          return ChapterReport(chapter: chapter, checks: all({ $0 < 3 }, .interrupted), crash: "signal 11")
        case 2...4: return ChapterReport(chapter: chapter, checks: all({ $0 % 3 != 1 }, .failed))
        default: return ChapterReport(chapter: chapter, checks: all({ _ in true }, .failed))
        }
      }
    }
    let names = ["solved", "untouched", "half-done", "compile-error", "endless-loop"]
    let grade = SubmissionGrade(
      name: index < 5 ? names[index] : "learner-\(index + 1)", source: "", reports: reports,
      notGraded: index == 7 ? "the archive holds no chapter" : nil, ignored: [],
      flags: index % 11 == 6
        ? [
          ReviewScan.Flag(
            location: "Chapters/06-Continuations/Bridge.swift:3", reason: "reads the environment", code: "")
        ]
        : [],
      seconds: 1, reused: 0)
    return ClassResult(grade, items: items, course: course)
  }
  return (course, results)
}

@Suite("The class page (class.html)")
struct ClassPageTests {
  @Test("The class's median is the middle score, or the mean of the two middle ones")
  func median() {
    #expect(ClassReports.median([1, 0.25, 0.75, 0.5]) == 0.625)
    #expect(ClassReports.median([0.2, 0.9, 0.5]) == 0.5)
    #expect(ClassReports.median([]) == 0)
  }

  @Test(
    "The page leads with the checks failing most among the submissions that started their chapter, with the count and most common failure"
  )
  func mostFailedFirst() throws {
    let (course, results) = try generatedClass(5)
    let page = ClassReports(course: course, style: Style(colored: false)).page(results)
    let list = try #require(page.firstMatch(of: #/<ol class="failing">(?s:.*?)</ol>/#)).output
    let first = try #require(list.firstMatch(of: #/<li>(?s:.*?)</li>/#)).output
    // Chapter 09 was started by four of the five (the untouched one did not
    // start anything; two solved it): the half-done one fails every check
    // past chapter 07, the one that loops every check from its 3rd.
    // Both fail 09.3 onwards; ties go in course order. The untouched
    // submission's failures count nowhere.
    #expect(first.contains("<span class=\"count\">2 of 4</span>"), "\(first)")
    #expect(first.contains("09.3 Single-flight: Check 3 of Single-flight"), "\(first)")
    #expect(first.contains("Most often"))
    #expect(!list.contains("of 5</span>"), "a count over submissions that never started the chapter")
    #expect(page.contains("does not compile") && page.contains("timed out"))
    #expect(page.contains("href=\"solved/results.json\""))
  }

  @Test(
    "Per chapter, the page counts the submissions that did not start it, that started it and are not done, and that are done"
  )
  func startedStuckDone() throws {
    let (course, results) = try generatedClass(5)
    let page = ClassReports(course: course, style: Style(colored: false)).page(results)
    let table = try #require(page.firstMatch(of: #/<table class="chapters">(?s:.*?)</table>/#)).output
    #expect(
      table.contains(
        "<th scope=\"col\">Not started</th><th scope=\"col\">Started, not done</th><th scope=\"col\">Done</th>"
      ))
    /// The row of chapter `number`: its cells' text, tags removed.
    func row(_ number: String) throws -> [String] {
      let row = try #require(
        table.split(separator: "\n").first { $0.hasPrefix("<tr><th scope=\"row\">\(number) ") })
      return row.matches(of: #/<td[^>]*>(.*?)</td>/#).map {
        String($0.output.1).replacing(#/<[^>]+>/#, with: "").trimmingCharacters(in: .whitespaces)
      }
    }
    // 01: only the untouched one has not started; the four others are done.
    #expect(try row("01").prefix(3) == ["1", "0", "4"])
    // 04: the one that does not compile started and is stuck.
    #expect(try row("04").prefix(3) == ["1", "1 (1 does not compile)", "3"])
    // 09: the half-done one and the one that loops are stuck.
    #expect(try row("09").prefix(3) == ["1", "2", "2"])
  }

  @Test("Every cell says its result with a symbol and in words, and the page fetches nothing")
  func cellsAndNothingFetched() throws {
    let (course, results) = try generatedClass(30)
    let page = ClassReports(course: course, style: Style(colored: false)).page(results)
    for cell in ClassReports.Cell.allCases {
      #expect(
        page.contains(
          "<td class=\"\(cell.rawValue)\">\(cell.symbol)<span class=\"sr\"> \(cell.words)</span></td>"))
    }
    #expect(page.firstRange(of: #/<(script|link|img|iframe)\b|url\(|@import|https?:/#) == nil)
  }

  @Test(
    "The page renders in Chromium at 1400 px and at a phone's 390 px for 5, 30 and 300 submissions: nothing overlaps, one cell per check and submission",
    .enabled(
      if: MissingTool.has("node") && (MissingTool.has("chromium") || MissingTool.has("google-chrome")),
      "Node.js or Chromium: not installed here (scripts/install-tools.sh installs both: apt-get install nodejs chromium)"
    )
  )
  func rendersInChromium() throws {
    let folder = try TemporaryFolder.shared.makeFolder("class-page")
    var pages: [String] = []
    var cells: [Int: Int] = [:]
    for size in [5, 30, 300] {
      let (course, results) = try generatedClass(size)
      cells[size] = size * ClassReports.columns(of: results.filter { $0.grade.notGraded == nil }).count
      let page = ClassReports(course: course, style: Style(colored: false)).page(results)
      let url = folder.appendingPathComponent("class-\(size)/class.html")
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(page.utf8).write(to: url)
      pages.append(url.path)
      Attachment.record(Data(page.utf8), named: "class-\(size).html")
    }
    // Its own folder of kept passes: the browser opens every page here.
    var environment = ProcessInfo.processInfo.environment
    environment["BROWSER_CHECKS_FOLDER"] = folder.appendingPathComponent("kept").path
    let checked = try Subprocess.run(
      repository.appendingPathComponent("scripts/check-class-page.sh").path, pages, environment: environment,
      timeout: 300)
    #expect(checked.succeeded, "\(checked.standardOutput)\(checked.standardError)")
    for size in [5, 30, 300] {
      #expect(
        checked.standardOutput.contains(
          "class-\(size)/class.html: \(cells[size] ?? 0) cells drawn, nothing overlaps"),
        "\(checked.standardOutput)")
    }
  }
}

@Suite(
  "Browser checks keep the pages they passed",
  .enabled(if: MissingTool.has("node"), "Node.js: not installed here (scripts/install-tools.sh installs it)"))
struct KeptBrowserChecksTests {
  /// A stand-in for Chromium that logs each page it opens and measures
  /// what `verdict` holds: no problem, or one.
  struct Browser {
    let folder: URL
    var executable: URL { folder.appendingPathComponent("chromium") }
    /// The check's scripts, copied here so that a test can edit its probe.
    var script: URL { folder.appendingPathComponent("slides/classpage.cjs") }
    /// The pages opened, once per check of a page (the check opens each at
    /// every width it measures; the log says which).
    var opened: [String] { openings.filter { $0.hasSuffix(" 1400,900") } }
    /// Every opening of a page: its file name and window size.
    var openings: [String] {
      ((try? String(contentsOf: folder.appendingPathComponent("opened"), encoding: .utf8)) ?? "")
        .split(separator: "\n").map(String.init)
    }

    init(in folder: URL) throws {
      self.folder = folder
      try write(version: "Chromium 1.0", problem: nil)
      try write(fonts: "DejaVu Sans")
      let slides = repository.appendingPathComponent("scripts/slides")
      try FileManager.default.createDirectory(
        at: script.deletingLastPathComponent(), withIntermediateDirectories: true)
      for name in ["classpage.cjs", "kept.cjs"] {
        try FileManager.default.copyItem(
          at: slides.appendingPathComponent(name),
          to: script.deletingLastPathComponent().appendingPathComponent(name))
      }
    }

    /// A stand-in for fontconfig's `fc-list`, first on the check's `PATH`, listing `fonts`.
    func write(fonts: String) throws {
      let tool = folder.appendingPathComponent("bin/fc-list")
      try FileManager.default.createDirectory(
        at: tool.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data("#!/bin/sh\necho '\(fonts)'\n".utf8).write(to: tool)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
    }

    /// The environment the check runs in: passes kept in `kept`, the
    /// stand-in `fc-list` first on `PATH`.
    func environment(kept: URL, fresh: Bool = false) -> [String: String] {
      var environment = ProcessInfo.processInfo.environment
      environment["BROWSER_CHECKS_FOLDER"] = kept.path
      if fresh { environment["BROWSER_CHECKS_FRESH"] = "1" }
      environment["PATH"] =
        folder.appendingPathComponent("bin").path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
      return environment
    }

    /// Rewrites the stand-in: its version line, and the problem it finds in every page.
    func write(version: String, problem: String?) throws {
      let found = problem.map { "&quot;\($0)&quot;" } ?? ""
      let script = """
        #!/bin/sh
        if [ "$1" = --version ]; then echo '\(version)'; exit 0; fi
        size=none
        for last; do case "$last" in --window-size=*) size=${last#--window-size=} ;; esac; done
        echo "$(basename "$last") $size" >> '\(folder.path)/opened'
        echo '<body data-measured="{&quot;found&quot;:[\(found)],&quot;cells&quot;:6}"></body>'
        """
      try Data(script.utf8).write(to: executable)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executable.path)
    }
  }

  /// Runs the class page's check with `browser` on `pages`, keeping passes in `kept`.
  func check(_ pages: [URL], browser: Browser, kept: URL, fresh: Bool = false) throws -> ProcessOutcome {
    try Subprocess.run(
      "node", [browser.script.path, browser.executable.path] + pages.map(\.path),
      environment: browser.environment(kept: kept, fresh: fresh), timeout: 60)
  }

  @Test("A page passed before is not opened again; an edited page, another browser, or a failing page is")
  func keptPasses() throws {
    let folder = try TemporaryFolder.shared.makeFolder("kept-browser-checks")
    let browser = try Browser(in: folder)
    let kept = folder.appendingPathComponent("kept")
    let page = folder.appendingPathComponent("a/class.html")
    try FileManager.default.createDirectory(
      at: page.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("<html><body><p>one</p></body></html>".utf8).write(to: page)

    let first = try check([page], browser: browser, kept: kept)
    #expect(first.succeeded, "\(first.standardOutput)\(first.standardError)")
    #expect(browser.opened.count == 1)
    #expect(
      browser.openings == ["page.html 1400,900", "page.html 390,844"], "a page not measured at both widths")
    let again = try check([page], browser: browser, kept: kept)
    #expect(again.succeeded)
    #expect(browser.opened.count == 1, "a page that passed was opened again")
    #expect(
      again.standardOutput.contains(
        "6 cells drawn, nothing overlaps at 1400 px or 390 px, nothing fetched (unchanged since it last passed)"
      ))

    try Data("<html><body><p>two</p></body></html>".utf8).write(to: page)
    _ = try check([page], browser: browser, kept: kept)
    #expect(browser.opened.count == 2, "an edited page was not opened")

    try browser.write(version: "Chromium 2.0", problem: nil)
    _ = try check([page], browser: browser, kept: kept)
    #expect(browser.opened.count == 3, "a page was not opened again in another browser")

    try browser.write(version: "Chromium 3.0", problem: "two texts overlap")
    for _ in 0..<2 {
      let failing = try check([page], browser: browser, kept: kept)
      #expect(!failing.succeeded && failing.standardOutput.contains("two texts overlap"))
    }
    #expect(browser.opened.count == 5, "a failing page was kept")

    try browser.write(version: "Chromium 2.0", problem: nil)
    _ = try check([page], browser: browser, kept: kept, fresh: true)
    #expect(browser.opened.count == 6, "BROWSER_CHECKS_FRESH=1 kept a page")
    _ = try check([page], browser: browser, kept: kept)
    #expect(browser.opened.count == 6)

    try browser.write(fonts: "DejaVu Sans\nNoto Sans CJK")
    _ = try check([page], browser: browser, kept: kept)
    #expect(browser.opened.count == 7, "a page was not opened again with other fonts")

    let probe = try String(contentsOf: browser.script, encoding: .utf8)
    try Data((probe + "\n// An edited probe.\n").utf8).write(to: browser.script)
    _ = try check([page], browser: browser, kept: kept)
    #expect(browser.opened.count == 8, "a page was not opened again with an edited probe")
  }

  @Test(
    "Marp's random names for scoped styles do not make a deck new; a deck whose styles are scoped differently is"
  )
  func scopeNames() throws {
    let folder = try TemporaryFolder.shared.makeFolder("kept-scopes")
    let browser = try Browser(in: folder)
    // kept.cjs on its own, as the checks use it: a page kept, then asked
    // for with other names in the same places, in other places, and with
    // words that only look like Marp's names.
    let script = """
      const kept = require(process.argv[1])(process.argv[2], process.argv[3]);
      const page = (a, b, c) =>
        `<section data-marpit-scope-${a}><p data-marpit-scope-${b}></p><i data-marpit-scope-${c}></i></section>`;
      kept.pass(page('AbCd1234', 'Zz99Yy88', 'AbCd1234'), 'kept');
      console.log([
        kept.passed(page('QwEr5678', 'TyUi9012', 'QwEr5678')),
        kept.passed(page('QwEr5678', 'TyUi9012', 'TyUi9012')),
        kept.passed(page('QwEr5678', 'QwEr5678', 'QwEr5678')),
        // Words that are not Marp's names (8 letters and digits) are the page's own text.
        (kept.pass(page('Ab', 'Cd', 'Ab'), 'kept'), kept.passed(page('Xy', 'Zw', 'Xy'))),
      ].map(String).join(' '));
      """
    let ran = try Subprocess.run(
      "node",
      [
        "-e", script, browser.script.deletingLastPathComponent().appendingPathComponent("kept.cjs").path,
        browser.executable.path, browser.script.path,
      ], environment: browser.environment(kept: folder.appendingPathComponent("kept")), timeout: 60)
    #expect(
      ran.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "kept null null null", "\(ran)")
  }
}
