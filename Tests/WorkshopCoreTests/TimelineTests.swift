import CheckTranscript
import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Chapter 04's starter, as the checks record it: a late answer for "sw".
private let lateAnswer = [
  "user typed \"sw\"",
  "clock: sleep until t=300ms (now t=0s)",
  "clock: advanced to t=300ms",
  "search(\"sw\") called",
  "user typed \"swift\"",
  "search(\"sw\") ignored cancellation and keeps going",
  "search(\"swift\") called",
  "search(\"swift\") returned [Swift Book]",
  "screen shows [Swift Book], error: none",
  "search(\"sw\") returned [Sweater] (late: its caller was cancelled)",
  "screen shows [Sweater], error: none",
]

private let user = Timeline.Lane("user", .caller)
private let screen = Timeline.Lane("screen", .caller)
private let search = Timeline.Lane("search", .service)

@Suite("Timelines")
struct TimelineTests {
  @Test("Events land in their lanes: callers left, your code, services, the clock right")
  func lanes() {
    let timeline = Timeline(events: lateAnswer, expected: "[Swift Book]", actual: "[Sweater]")
    #expect(timeline.lanes == [user, screen, .code, search, .clock])
    #expect(timeline.unknownEvents.isEmpty)
    let steps = timeline.steps
    #expect(steps.map(\.number) == Array(1...lateAnswer.count))
    #expect(
      steps[0].kind == .call && steps[0].from == user && steps[0].to == .code
        && steps[0].label == "typed \"sw\"")
    #expect(steps[1].kind == .call && steps[1].to == .clock && steps[1].label == "sleep until t=300ms")
    #expect(steps[2].kind == .tick && steps[2].label == "t=300ms")
    #expect(
      steps[3].kind == .call && steps[3].from == .code && steps[3].to == search
        && steps[3].label == "search(\"sw\")")
    #expect(steps[5].kind == .note && steps[5].from == search)
    #expect(
      steps[7].kind == .answer && steps[7].from == search && steps[7].to == .code
        && steps[7].label == "[Swift Book]")
    #expect(steps[8].kind == .publish && steps[8].to == screen)
  }

  @Test("The late answer, and the publish that shows the unexpected value, are marked; nothing else is")
  func wrongSteps() {
    let timeline = Timeline(events: lateAnswer, expected: "[Swift Book]", actual: "[Sweater]")
    #expect(timeline.steps.filter(\.isWrong).map(\.number) == [10, 11])
    // Without the verdict, only what is wrong on its face: the late answer.
    #expect(Timeline(events: lateAnswer).steps.filter(\.isWrong).map(\.number) == [10])
    // A quoted string value is found without its quotes; a call by a cancelled task is wrong on its face.
    let failure = Timeline(
      events: [
        "search(\"sw\") called by a cancelled task", "screen shows [], error: Search failed: ServerDown",
      ],
      actual: "\"Search failed: ServerDown\"")
    #expect(failure.steps.map(\.isWrong) == [true, true])
  }

  @Test("A count above the expected one marks the extra calls to the service called that many times")
  func extraCalls() {
    let events =
      (1...3).map { "caller \($0) asks to reserve \"A\"" }
      + (1...3).map { _ in "remote.reserve(\"A\") called" }
    let timeline = Timeline(events: events, expected: "1", actual: "3")
    #expect(timeline.steps.filter(\.isWrong).map(\.number) == [5, 6])
    #expect(timeline.lanes.map(\.name) == ["caller 1", "caller 2", "caller 3", "your code", "remote"])
  }

  @Test("More than four numbered callers share one lane, and each label says which caller it was")
  func crowds() {
    let events =
      (1...10).map { "caller \($0) asks for a valid token" } + ["caller 3 finished: Token(fresh-1)"]
    let timeline = Timeline(events: events)
    #expect(timeline.lanes.map(\.name) == ["callers 1–10", "your code"])
    #expect(timeline.steps[1].label == "2: asks for a valid token")
    #expect(timeline.steps[10].kind == .answer && timeline.steps[10].label == "3: Token(fresh-1)")
    // Four stay apart.
    #expect(Timeline(events: Array(events.prefix(4))).lanes.count == 5)
  }

  @Test("A function something called is a service; one that only answers is the learner's code")
  func servicesAndCode() {
    let timeline = Timeline(events: [
      "screen calls refresh()", "loadProfile() called", "loadProfile() threw LegacySDKError.cancelled",
      "refresh() returned", "downloadFromFastestMirror threw Offline",
    ])
    let steps = timeline.steps
    #expect(steps[0].from == screen && steps[0].to == .code)
    #expect(steps[1].to == Timeline.Lane("loadProfile", .service))
    #expect(steps[2].kind == .answer && steps[2].label == "threw LegacySDKError.cancelled")
    // It answers whoever called it: the screen.
    #expect(steps[3].kind == .answer && steps[3].from == .code && steps[3].to == screen)
    #expect(steps[4].kind == .answer && steps[4].label == "threw Offline")
    #expect(timeline.unknownEvents.isEmpty)
  }

  @Test("Answers after words about the arguments, numbered requests and the field are in their lanes")
  func moreAnswers() {
    let timeline = Timeline(events: [
      "resizeAll with maxConcurrent 0 finished: []", "request 2 for a.png threw ServerDown",
      "field shows checking",
    ])
    #expect(timeline.unknownEvents.isEmpty)
    let steps = timeline.steps
    #expect(steps[0].kind == .answer && steps[0].from == .code && steps[0].label == "[]")
    #expect(steps[1].kind == .answer && steps[1].to == Timeline.Lane("request 2", .caller))
    #expect(steps[1].label == "threw ServerDown")
    #expect(steps[2].kind == .publish && steps[2].to == Timeline.Lane("field", .caller))
  }

  @Test("A check that records thousands of events draws the first ones and says so")
  func manyEvents() {
    let events = (1...5000).map { _ in "search(\"s\") called" }
    let report = ChapterReport(
      chapter: Curriculum.Chapter(
        number: 4, name: "DebouncedSearch", title: "Debounced search", summary: "S.",
        files: ["SearchModel.swift"], hints: [], starterFails: []),
      checks: [
        CheckResult(
          id: "a", name: "Spins", status: .failed, issues: [Verdict(behaviour: "B", events: events).text])
      ])
    let svg = TimelinePage(report).pictures[0].svg
    #expect(svg.contains("data-steps=\"\(TimelinePage.eventLimit)\""))
    #expect(svg.contains("Spins (the first \(TimelinePage.eventLimit) of 5000 events)"))
  }

  @Test(
    "A slide's picture is the rows leading to the first that should not have happened, numbered as in the terminal, large enough to read"
  )
  func slideExcerpt() throws {
    let timeline = Timeline(events: lateAnswer, expected: "[Swift Book]", actual: "[Sweater]")
    let wrongRow = timeline.steps.first { $0.isWrong }
    let firstWrong = try #require(wrongRow).number
    let excerpt = timeline.excerpt(rows: 4)
    let numbers = excerpt.steps.map(\.number)
    #expect(numbers.count == 4 && numbers.contains(firstWrong))
    #expect(numbers == Array(numbers[0]...numbers[0] + 3), "consecutive rows, with the terminal's numbers")
    #expect(excerpt.steps.allSatisfy { step in timeline.steps.contains(step) })
    #expect(excerpt.lanes.allSatisfy(timeline.lanes.contains) && excerpt.lanes.count < timeline.lanes.count)
    let svg = TimelineDrawing(excerpt, title: "t", showsWords: false).svg
    #expect(!svg.contains("class=\"event\""), "no column of words")
    // Its 12 px text, drawn 1,180 px wide on a 1280x720 slide, reads at 18 px or more.
    let width = try #require(
      svg.split(separator: "\"").dropFirst().first { Double($0) != nil }.flatMap { Double($0) })
    #expect(12 * 1180 / width >= 18, "the picture is \(width) px wide")
    // With no wrong row, the last rows.
    #expect(Timeline(events: Array(lateAnswer.prefix(5))).excerpt(rows: 3).steps.map(\.number) == [3, 4, 5])
  }

  @Test("An event the grammar does not know is still drawn, in the checks' lane, and is listed")
  func unknownEvent() {
    let timeline = Timeline(events: ["the moon rises over the server room"])
    #expect(timeline.steps[0].from == .checks && timeline.steps[0].kind == .note)
    #expect(timeline.unknownEvents == ["the moon rises over the server room"])
  }

  @Test("Labels are cut to fit between the lanes they join; the full words stay in the text column")
  func labelsFit() throws {
    let long = "search(a_keyword_far_longer_than_the_space_between_two_lanes) called"
    let svg = TimelineDrawing(Timeline(events: [long]), title: "t").svg
    let label = try #require(
      svg.split(separator: "\n").first { $0.contains("class=\"label\"") }?.split(separator: ">").dropFirst()
        .first?
        .split(separator: "<").first)
    let fits = Int((TimelineDrawing.laneGap - 16) / TimelineDrawing.advance)
    #expect(label.count == fits && label.hasSuffix("…"))
    // The column wraps at a space.
    #expect(svg.contains(">search(a_keyword_far_longer_than_the_space_between_two_lanes)</text>"))
    #expect(svg.contains(">called</text>"))
  }

  @Test("What learner code puts in an event is escaped in the picture and the page")
  func escaping() {
    let hostile = "screen shows [<script>alert(1)</script> & \"quotes\"], error: none"
    let report = ChapterReport(
      chapter: Curriculum.Chapter(
        number: 4, name: "DebouncedSearch", title: "Debounced search", summary: "S.",
        files: ["SearchModel.swift"],
        hints: [], starterFails: []),
      checks: [
        CheckResult(
          id: "a", name: "Shows <b>", status: .failed,
          issues: [Verdict(behaviour: "B <i>", actual: "<x>", events: [hostile]).text + "\n(at T.swift:1)"])
      ])
    let page = TimelinePage(report)
    #expect(page.pictures.count == 1)
    #expect(
      !page.html.contains("<script>") && !page.html.contains("Shows <b>") && !page.html.contains("B <i>"))
    #expect(page.html.contains("Shows &lt;b&gt;") && page.html.contains("&lt;x&gt;"))
    #expect(page.html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"))
  }

  @Test("A page has one picture per failing check and log, named after the check; none for passing checks")
  func pages() {
    let chapter = Curriculum.Chapter(
      number: 4, name: "DebouncedSearch", title: "Debounced search", summary: "S.",
      files: ["SearchModel.swift"],
      hints: [], starterFails: [])
    let issue = Verdict(behaviour: "B", expected: "[Swift Book]", actual: "[Sweater]", events: lateAnswer)
      .text
    let report = ChapterReport(
      chapter: chapter,
      checks: [
        CheckResult(
          id: "a", name: "A late answer never replaces newer results", status: .failed,
          issues: [issue, issue]),
        CheckResult(id: "b", name: "Passes", status: .passed),
      ])
    let page = TimelinePage(report)
    #expect(page.pictures.map(\.fileName) == ["a-late-answer-never-replaces-newer-results.svg"])
    #expect(page.pictures[0].svg.hasPrefix("<svg ") && page.html.contains(page.pictures[0].svg))
    #expect(TimelinePage(ChapterReport(chapter: chapter, checks: [report.checks[1]])).pictures.isEmpty)
  }

  @Test(
    "check --timeline writes the page and an SVG per picture, says where, and removes pictures of checks that pass now"
  )
  func writesFiles() throws {
    let root = try TemporaryFolder.shared.makeFolder("timeline-output")
    let chapter = Curriculum.Chapter(
      number: 4, name: "DebouncedSearch", title: "Debounced search", summary: "S.",
      files: ["SearchModel.swift"],
      hints: [], starterFails: [])
    let workspace = Workspace(root: root, curriculum: Curriculum(title: "W", chapters: [chapter]))
    let out = Mutex("")
    let console = Workshop.Console(out: { line in out.withLock { $0 += line + "\n" } }, err: { _ in })
    let runner = Workshop(
      console: console, style: Style(colored: false), directory: root, subcommands: LearnerCommands.table)
    let issue = Verdict(behaviour: "B", expected: "[Swift Book]", actual: "[Sweater]", events: lateAnswer)
      .text
    let failing = ChapterReport(
      chapter: chapter,
      checks: [CheckResult(id: "a", name: "A late answer is dropped", status: .failed, issues: [issue])])

    #expect(runner.writeTimelines(failing, workspace) == Workshop.ExitCode.success)
    let page = root.appendingPathComponent(".workshop/timelines/04-DebouncedSearch.html")
    let picture = root.appendingPathComponent(
      ".workshop/timelines/04-DebouncedSearch/a-late-answer-is-dropped.svg")
    #expect(FileManager.default.fileExists(atPath: page.path))
    #expect(try String(contentsOf: picture, encoding: .utf8) == TimelinePage(failing).pictures[0].svg)
    #expect(
      out.withLock { $0 }.contains(
        "Timeline of 1 failing check: open .workshop/timelines/04-DebouncedSearch.html"))

    let passing = ChapterReport(
      chapter: chapter, checks: [CheckResult(id: "a", name: "A late answer is dropped", status: .passed)])
    #expect(runner.writeTimelines(passing, workspace) == Workshop.ExitCode.success)
    #expect(
      !FileManager.default.fileExists(atPath: page.path)
        && !FileManager.default.fileExists(atPath: picture.path))
    #expect(out.withLock { $0 }.contains("No timeline: every check passes."))
  }

  @Test("Learner text that looks like the kit's words, or a vague value, marks nothing")
  func noFalseMarks() {
    let timeline = Timeline(
      events: [
        "search(\"5\\\" tv\") called", "search(\"5\\\" tv\") returned [Chocolate (latest)]",
        "screen shows [Chocolate (latest)], error: none", "profile(id:) returned nil",
      ],
      expected: "\"Search failed\"", actual: "nil")
    #expect(timeline.steps.filter(\.isWrong).isEmpty)
    #expect(timeline.unknownEvents.isEmpty, "an escaped quote inside the call's argument")
    #expect(timeline.steps[1].label == "[Chocolate (latest)]")
  }

  @Test("Wide characters and control characters: labels still fit, and the SVG is well-formed XML")
  func wideAndControlCharacters() throws {
    #expect(TimelineDrawing.columns("検索") == 4 && TimelineDrawing.columns("🍫a") == 3)
    #expect(TimelineDrawing.cut("検索検索検索", to: 5) == "検索…")
    let svg = TimelineDrawing(
      Timeline(events: ["search(\"検索検索検索検索検索検索検索検索検索検索\") called", "screen shows [bell \u{07}], error: none"]
      ),
      title: "t\u{1B}[31m"
    ).svg
    let label = try #require(
      svg.split(separator: "\n").first { $0.contains("class=\"label\"") }?.split(separator: ">").dropFirst()
        .first?
        .split(separator: "<").first)
    let shown = label.replacingOccurrences(of: "&quot;", with: "\"")
    #expect(shown.hasSuffix("…"))
    #expect(TimelineDrawing.columns(shown) <= Int((TimelineDrawing.laneGap - 16) / TimelineDrawing.advance))
    #expect(
      XMLParser(data: Data(svg.utf8)).parse(),
      "the picture parses as XML, as an SVG file and a deck's image must")
  }
}
