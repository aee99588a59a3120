import CheckTranscript
import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner

@Suite("The runner's language")
struct LanguageTests {
  @Test(
    "Locale names choose Simplified Chinese or English, and nothing else",
    arguments: [
      ("zh_CN.UTF-8", Language.chinese), ("zh-Hans", .chinese), ("zh-Hans-CN", .chinese), ("zh_SG", .chinese),
      ("zh", .chinese), ("en_US.UTF-8", .english), ("en", .english),
    ])
  func naming(_ name: String, _ language: Language) {
    #expect(Language(naming: name) == language)
  }

  @Test(
    "Traditional Chinese and other languages are not taken for Simplified Chinese",
    arguments: ["zh_TW.UTF-8", "zh-Hant", "zh-Hant-HK", "zh_HK", "C.UTF-8", "POSIX", "fr_FR", ""])
  func notNamed(_ name: String) {
    #expect(Language(naming: name) == nil)
  }

  @Test("The environment decides as POSIX orders it: LC_ALL, then LC_MESSAGES, then LANG")
  func environment() {
    #expect(Language.fromEnvironment(["LANG": "zh_CN.UTF-8"]) == .chinese)
    #expect(Language.fromEnvironment(["LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"]) == .english)
    #expect(Language.fromEnvironment(["LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "C"]) == .chinese)
    #expect(Language.fromEnvironment(["LANG": "zh_TW.UTF-8"]) == .english)
  }

  @Test("--lang wins over the remembered choice, which wins over the environment; auto asks the environment")
  func chosen() {
    let chinese = ["LANG": "zh_CN.UTF-8"]
    #expect(Language.chosen(.language(.english), remembered: .chinese, environment: chinese) == .english)
    #expect(Language.chosen(nil, remembered: .english, environment: chinese) == .english)
    #expect(Language.chosen(nil, remembered: nil, environment: chinese) == .chinese)
    #expect(Language.chosen(.auto, remembered: .english, environment: chinese) == .chinese)
  }

  @Test("--lang is taken out of the command line wherever it is, and never after --")
  func option() throws {
    let before = try Language.takeOption(from: ["--lang", "zh-Hans", "check", "04"])
    #expect(before.arguments == ["check", "04"])
    #expect(before.choice == .language(.chinese))
    let after = try Language.takeOption(from: ["check", "04", "--lang=en"])
    #expect(after.arguments == ["check", "04"])
    #expect(after.choice == .language(.english))
    #expect(try Language.takeOption(from: ["--lang", "auto"]).choice == .auto)
    let none = try Language.takeOption(from: ["check", "--", "--lang", "zh"])
    #expect(none.arguments == ["check", "--", "--lang", "zh"])
    #expect(none.choice == nil)
  }

  @Test("A missing or unknown --lang is a usage error naming the choices")
  func badOption() {
    #expect(throws: UsageError.self) { try Language.takeOption(from: ["list", "--lang"]) }
    do {
      _ = try Language.takeOption(from: ["--lang", "fr", "list"])
      Issue.record("fr was taken")
    } catch let error as UsageError {
      #expect(error.message.contains("unknown language 'fr'"))
      #expect(error.message.contains(Language.choices))
    } catch {
      Issue.record("\(error)")
    }
  }

  @Test("An unknown --lang exits 64 with the error, before anything is graded")
  func badOptionExits() {
    let said = Mutex<[String]>([])
    let console = Workshop.Console(out: { _ in }, err: { line in said.withLock { $0.append(line) } })
    let workshop = Workshop(
      console: console, style: Style(colored: false), directory: FileManager.default.temporaryDirectory,
      subcommands: LearnerCommands.table, environment: [:])
    #expect(workshop.run(["--lang", "klingon", "list"]) == Workshop.ExitCode.usage)
    #expect(said.withLock { $0.first }?.contains("unknown language 'klingon'") == true)
  }

  @Test(
    "Every help text of the learner's runner has its Chinese, and help in Chinese shows no English sentence")
  func help() throws {
    let table = LearnerCommands.table
    var texts: [String] = []
    for command in LearnerCommands.all {
      let configuration = command.configuration
      texts += [configuration.summary, configuration.discussion].filter { !$0.isEmpty }
      texts += configuration.options.map(\.help)
      if let argument = configuration.argument {
        texts.append(argument.help)
        texts += argument.whenLeftOut.map { [$0] } ?? []
      }
    }
    for text in texts {
      #expect(table.say(text, .chinese) != text, "no Chinese for: \(text)")
    }
    // The instructor's grade too, as workshop-instructor's table holds it.
    let instructor = SubcommandTable(
      LearnerCommands.all + InstructorCommands.all,
      chinese: LearnerCommands.chinese.merging(InstructorCommands.chinese) { $1 })
    let grade = GradeCommand.configuration
    for text in [grade.summary, grade.discussion, grade.argument?.help ?? ""] + grade.options.map(\.help)
      + grade.options.compactMap(\.defaultValue).filter({
        Int($0) == nil && $0 != GradeCommand.defaultReportDirectory
      })
    {
      #expect(instructor.say(text, .chinese) != text, "no Chinese for grade's: \(text)")
    }
    for name in [nil] + LearnerCommands.all.map({ $0.configuration.name }) {
      let help = try #require(table.help(for: name, .chinese))
      // Prose is what remains once commands, options, paths and placeholders are taken out.
      // Subcommand names are typed, not read.
      let names =
        LearnerCommands.all.map { $0.configuration.name } + InstructorForwarding.subcommands + ["help"]
      var prose = help.replacing(
        #/\S*[/<>.-]\S*|workshop|DebouncedSearch|Swift|Ctrl-C|SVG|HTML|LANG|\bq\b|auto|en\b/#, with: "")
      for name in names { prose = prose.replacing(try Regex("\\b\(name)\\b"), with: "") }
      #expect(
        prose.firstMatch(of: #/[A-Za-z]{4,}/#) == nil,
        "English left in help for \(name ?? "the overview"): \(help)")
      #expect(help.contains("用法："))
    }
    // English help is as it was.
    #expect(
      table.help(for: "check")?.contains("OVERVIEW: Run one chapter's checks and explain every failure.")
        == true)
  }

  @Test("A usage error is said in Chinese when the runner speaks it")
  func usageErrors() {
    let said = Mutex<[String]>([])
    let console = Workshop.Console(out: { _ in }, err: { line in said.withLock { $0.append(line) } })
    let workshop = Workshop(
      console: console, style: Style(colored: false), directory: FileManager.default.temporaryDirectory,
      subcommands: LearnerCommands.table, environment: ["LANG": "zh_CN.UTF-8"])
    #expect(workshop.run(["chek"]) == Workshop.ExitCode.usage)
    #expect(
      said.withLock { $0 } == [
        "error: 没有子命令 'chek'。你是想用 'check' 吗？", "用法：workshop [<subcommand>] [<options>]",
        "见 'workshop --help'。",
      ])
    said.withLock { $0 = [] }
    #expect(workshop.run(["check", "--timeout", "0"]) == Workshop.ExitCode.usage)
    #expect(said.withLock { $0.first } == "error: '--timeout' 的值应该是1 到 3600 之间的秒数，而不是 '0'")
  }

  @Test("The choice is remembered for the checkout, forgotten with auto, and a damaged file is ignored")
  func remembered() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lang-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let remembered = Language.Remembered(directory: folder)
    #expect(remembered.load() == nil)
    try remembered.save(.chinese)
    #expect(remembered.load() == .chinese)
    try remembered.save(nil)
    #expect(remembered.load() == nil)
    try Data("klingon\n".utf8).write(to: folder.appendingPathComponent("language"))
    #expect(remembered.load() == nil)
    // A link is not followed: the runner reads no file a link in its folder names.
    try FileManager.default.removeItem(at: folder.appendingPathComponent("language"))
    try Data("zh-Hans\n".utf8).write(to: folder.appendingPathComponent("elsewhere"))
    try FileManager.default.createSymbolicLink(
      at: folder.appendingPathComponent("language"),
      withDestinationURL: folder.appendingPathComponent("elsewhere"))
    #expect(remembered.load() == nil)
  }

  @Test("A Chinese character takes two columns of a terminal, so the table's columns line up")
  func columns() {
    #expect(Columns.width(of: "Task tree") == 9)
    #expect(Columns.width(of: "任务树") == 6)
    #expect(Columns.width(of: "Actor 重入") == 10)
    #expect(Columns.width(of: "Continuation，恰好一次") == 12 + 2 + 8)
  }
}

@Suite("Reports in Chinese")
struct ChineseReportTests {
  static let chapter = Curriculum.Chapter(
    number: 4, name: "DebouncedSearch", title: "Debounced search", summary: "A search box.",
    files: ["SearchModel.swift"], hints: [], starterFails: ["late"])
  static let other = Curriculum.Chapter(
    number: 5, name: "TaskOwnership", title: "Task ownership", summary: "Own it.", files: ["Feed.swift"],
    hints: [], starterFails: [])
  static let workspace = Workspace(
    root: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"),
    curriculum: Curriculum(title: "Workshop", chapters: [chapter, other]))
  static let texts: [String: CourseText.Entry] = [
    "04/title": .init(source: CourseText.hash("Debounced search"), text: "防抖搜索"),
    "04/summary": .init(source: CourseText.hash("A search box."), text: "一个搜索框。"),
  ]

  static var verdict: Verdict {
    Verdict(
      behaviour: "The late answer for \"sw\" is dropped", expected: "[Swift Book]", actual: "[Sweater]",
      events: [.note("user typed \"sw\""), .call("search(\"sw\") called")])
  }

  static var report: ChapterReport {
    let failing = CheckResult(
      id: "late", name: "Drops the late answer", status: .failed,
      issues: [CheckIssue(verdict.text, verdict: verdict)])
    return ChapterReport(
      chapter: chapter, checks: [CheckResult(id: "a", name: "Searches once", status: .passed), failing])
  }

  func report(_ words: Language) -> Report {
    var report = Report(style: Style(colored: false), workspace: Self.workspace, words: words)
    report.course = CourseText(curriculum: Self.workspace.curriculum, language: words, texts: Self.texts)
    return report
  }

  @Test("A failing check keeps its name, behaviour, values and events, and only the labels are translated")
  func detail() {
    let text = report(.chinese).chapterDetail(Self.report)
    #expect(text.contains("第 04 章 · 防抖搜索"))
    #expect(text.contains("一个搜索框。"))
    #expect(text.contains("✗ Drops the late answer"))
    #expect(text.contains("The late answer for \"sw\" is dropped"))
    #expect(text.contains("预期：[Swift Book]"))
    #expect(text.contains("实际：[Sweater]"))
    #expect(text.contains("记录的事件：\n        1. user typed \"sw\""))
    #expect(text.contains("2 项检查通过 1 项。"))
    for english in ["Expected:", "Actual:", "Recorded events:", "checks pass", "Edit "] {
      #expect(!text.contains(english), "\(english) is left in English")
    }
    // The same report in English is as it always was.
    let english = report(.english).chapterDetail(Self.report)
    #expect(english.contains("Expected: [Swift Book]"))
    #expect(english.contains("Chapter 04 · Debounced search"))
  }

  @Test("The table is in Chinese, its columns line up, and a title without a translation stays English")
  func table() {
    let reports = [Self.report, ChapterReport(chapter: Self.other)]
    let text = report(.chinese).progress(reports, current: Self.report)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.contains("章节") && $0.contains("检查") && $0.contains("状态") })
    #expect(text.contains("防抖搜索"))
    #expect(text.contains("Task ownership"), "chapter 05 has no translation here")
    #expect(text.contains("下一步：第 04 章，防抖搜索"))
    // The checks column starts at the same terminal column on every row.
    let rows = lines.filter { $0.hasPrefix("  04") || $0.hasPrefix("  05") }
    let columns = rows.compactMap { row in
      row.firstMatch(of: #/^(  \d\d  .+?\s{2,})\S/#).map { Columns.width(of: String($0.1)) }
    }
    #expect(rows.count == 2)
    #expect(Set(columns).count == 1, "\(rows)")
  }

  @Test("The grader's own words about a learner's checks are kept in Chinese too")
  func graderRules() {
    let found = ["Chapters/13-TestingConcurrency/UsernameFieldTests.swift:12: Task.sleep"]
    let rule = Grader.rule(Grader.waitsItem, found: found, why: ("Wait for events.", "等事件。"))
    #expect(rule.issues[0].words(.english) == "Wait for events. Found:\n  " + found[0])
    #expect(rule.issues[0].words(.chinese) == "等事件。发现：\n  " + found[0])
    let shipped = Grader.versionAsShipped(id: "v", name: "Catches it", of: Self.chapter)
    #expect(shipped.issues[0].words(.chinese).hasPrefix("原样发布时的结果"))
    #expect(ChapterReport.isPendingVersion(shipped), "the English note still marks a version left for later")
  }

  @Test("check --timeline in Chinese: the page's words and labels, the check's name and events as recorded")
  func timelinePage() {
    let course = CourseText(curriculum: Self.workspace.curriculum, language: .chinese, texts: Self.texts)
    let page = TimelinePage(Self.report, course: course).html
    #expect(page.contains("<html lang=\"zh-Hans\">"))
    #expect(page.contains("第 04 章 · 防抖搜索：每项失败的检查里发生了什么"))
    #expect(page.contains("<b>预期：</b> <code>[Swift Book]</code>"))
    #expect(page.contains("✗ Drops the late answer"))
    #expect(TimelinePage(Self.report).html.contains("<b>Expected:</b>"))
  }

  @Test("A check that never finished is explained in the grader's Chinese words")
  func graderWords() {
    var issue = CheckIssue("Did not finish: run on its own, it was stopped after 30 s. " + Stuck.cause)
    issue.chinese = "没有结束：单独运行时，运行 30 s 后被叫停了。" + Stuck.causeInChinese
    let stuck = ChapterReport(
      chapter: Self.chapter,
      checks: [CheckResult(id: "late", name: "Drops the late answer", status: .interrupted, issues: [issue])])
    let text = report(.chinese).chapterDetail(stuck)
    #expect(text.contains(Stuck.causeInChinese))
    #expect(!text.contains(Stuck.cause))
  }

  @Test(
    "grade --lang zh-Hans: a learner's report names the chapter in both languages, keeps the check's name and data, and translates the rest"
  )
  func classReports() throws {
    let items = ClassGrader.Items(byChapter: [
      4: [
        ExpectedCheck(id: "a", name: "Searches once"),
        ExpectedCheck(id: "late", name: "Drops the late answer"),
      ]
    ])
    let grade = SubmissionGrade(
      name: "ada", source: "ada", reports: [Self.report], notGraded: nil, ignored: [], flags: [], seconds: 1,
      reused: 0)
    let result = ClassResult(grade, items: items, course: Self.workspace, words: .chinese)
    var reports = ClassReports(course: Self.workspace, style: Style(colored: false), words: .chinese)
    reports.text = CourseText(curriculum: Self.workspace.curriculum, language: .chinese, texts: Self.texts)
    let gradescope = reports.gradescope(result)
    let failing = try #require(gradescope.tests.first { $0.status == "failed" })
    #expect(failing.name == "04 防抖搜索（Debounced search）：Drops the late answer", "no Chinese name: its own")
    reports.text = CourseText(
      curriculum: Self.workspace.curriculum, language: .chinese,
      texts: Self.texts.merging([
        "04/check/Drops the late answer": .init(
          source: CourseText.hash("Drops the late answer"), text: "丢弃晚到的回答")
      ]) { $1 })
    #expect(
      reports.gradescope(result).tests.contains {
        $0.name == "04 防抖搜索（Debounced search）：丢弃晚到的回答（Drops the late answer）"
      })
    #expect(failing.output.contains("预期：[Swift Book]"))
    #expect(failing.output.contains("The late answer for \"sw\" is dropped"))
    #expect(gradescope.output.contains("2 项检查通过 1 项"))
    #expect(reports.markdown([result]).contains("| 提交 | 检查 |"))
    #expect(reports.table([result]).contains("全班：1 份提交"))
    #expect(reports.junit(result).contains("预期：[Swift Book]"))
    // English, as before.
    let english = ClassReports(course: Self.workspace, style: Style(colored: false)).gradescope(
      ClassResult(grade, items: items, course: Self.workspace))
    #expect(english.tests.contains { $0.name == "04 Debounced search: Drops the late answer" })
  }
}
