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

/// Chapter 04's starter, as the checks and the kit record it: a late answer for "sw".
private let lateAnswer: [RecordedEvent] = [
  .call("user typed \"sw\"", from: .caller("user"), label: "typed \"sw\""),
  .call("clock: sleep until t=300ms (now t=0s)", to: .clock, label: "sleep until t=300ms"),
  .tick("clock: advanced to t=300ms", label: "t=300ms"),
  .call("search(\"sw\") called", to: .service("search"), label: "search(\"sw\")"),
  .call("user typed \"swift\"", from: .caller("user"), label: "typed \"swift\""),
  .note(
    "search(\"sw\") ignored cancellation and keeps going", in: .service("search"),
    label: "ignored cancellation and keeps going"),
  .call("search(\"swift\") called", to: .service("search"), label: "search(\"swift\")"),
  .answer("search(\"swift\") returned [Swift Book]", from: .service("search"), label: "[Swift Book]"),
  .publish(
    "screen shows [Swift Book], error: none", to: .caller("screen"), label: "[Swift Book], error: none"),
  .answer(
    "search(\"sw\") returned [Sweater] (late: its caller was cancelled)", from: .service("search"),
    label: "[Sweater]"
  ).wrong(),
  .publish("screen shows [Sweater], error: none", to: .caller("screen"), label: "[Sweater], error: none"),
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
    let steps = timeline.steps
    #expect(steps.map(\.number) == Array(1...lateAnswer.count))
    #expect(steps.map(\.text) == lateAnswer.map(\.text))
    #expect(
      steps[0].kind == .call && steps[0].from == user && steps[0].to == .code
        && steps[0].label == "typed \"sw\"")
    #expect(steps[2].kind == .tick && steps[2].to == nil && steps[2].label == "t=300ms")
    #expect(steps[5].kind == .note && steps[5].from == search && steps[5].to == nil)
  }

  @Test("The late answer, and the publish that shows the unexpected value, are marked; nothing else is")
  func wrongSteps() {
    let timeline = Timeline(events: lateAnswer, expected: "[Swift Book]", actual: "[Sweater]")
    #expect(timeline.steps.filter(\.isWrong).map(\.number) == [10, 11])
    // Without the verdict, only what is wrong on its face: the late answer.
    #expect(Timeline(events: lateAnswer).steps.filter(\.isWrong).map(\.number) == [10])
    // A quoted string value is found without its quotes.
    let failure = Timeline(
      events: [
        .publish(
          "screen shows [], error: Search failed: ServerDown", to: .caller("screen"),
          label: "[], error: Search failed: ServerDown")
      ],
      actual: "\"Search failed: ServerDown\"")
    #expect(failure.steps.map(\.isWrong) == [true])
  }

  @Test("A count above the expected one marks the extra calls to the service called that many times")
  func extraCalls() {
    let events =
      (1...3).map {
        RecordedEvent.call("caller \($0) asks to reserve \"A\"", from: .caller("caller \($0)"), label: "asks")
      }
      + (1...3).map { _ in
        RecordedEvent.call(
          "remote.reserve(\"A\") called", to: .service("remote"), label: "remote.reserve(\"A\")")
      }
    let timeline = Timeline(events: events, expected: "1", actual: "3")
    #expect(timeline.steps.filter(\.isWrong).map(\.number) == [5, 6])
    #expect(timeline.lanes.map(\.name) == ["caller 1", "caller 2", "caller 3", "your code", "remote"])
  }

  @Test("More than four numbered callers share one lane, and each label says which caller it was")
  func crowds() {
    let events =
      (1...10).map {
        RecordedEvent.call(
          "caller \($0) asks for a valid token", from: .caller("caller \($0)"),
          label: "asks for a valid token")
      } + [.answer("caller 3 finished: Token(fresh-1)", to: .caller("caller 3"), label: "Token(fresh-1)")]
    let timeline = Timeline(events: events)
    #expect(timeline.lanes.map(\.name) == ["callers 1–10", "your code"])
    #expect(timeline.steps[1].label == "2: asks for a valid token")
    #expect(timeline.steps[10].kind == .answer && timeline.steps[10].label == "3: Token(fresh-1)")
    // Four stay apart.
    #expect(Timeline(events: Array(events.prefix(4))).lanes.count == 5)
  }

  @Test("The learner's function answers whoever called it last")
  func answersWhoCalled() {
    let timeline = Timeline(events: [
      .call("screen calls refresh()", from: .caller("screen"), label: "refresh()"),
      .call("loadProfile() called", to: .service("loadProfile"), label: "loadProfile()"),
      .answer("loadProfile() threw Cancelled", from: .service("loadProfile"), label: "threw Cancelled"),
      .answer("refresh() returned", label: "returned"),
    ])
    let steps = timeline.steps
    #expect(steps[2].kind == .answer && steps[2].to == .code)
    #expect(steps[3].kind == .answer && steps[3].from == .code && steps[3].to == screen)
    // With nobody to answer, the answer goes to a caller lane of its own.
    #expect(Timeline(events: [.answer("run() returned", label: "returned")]).steps[0].to == .whoeverCalled)
  }

  @Test("A check that records thousands of events draws the first ones and says so")
  func manyEvents() {
    let events = (1...5000).map { _ in
      RecordedEvent.call("search(\"s\") called", to: .service("search"), label: "search(\"s\")")
    }
    let report = ChapterReport(
      chapter: Curriculum.Chapter(
        number: 4, name: "DebouncedSearch", title: "Debounced search", summary: "S.",
        files: ["SearchModel.swift"], hints: [], starterFails: []),
      checks: [
        CheckResult(
          id: "a", name: "Spins", status: .failed, issues: [issue(Verdict(behaviour: "B", events: events))])
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
    // Its 12 px text, drawn 1,100 px wide on a 1280x720 slide, reads at 20 px or more.
    let width = try #require(
      svg.split(separator: "\"").dropFirst().first { Double($0) != nil }.flatMap { Double($0) })
    #expect(12 * 1100 / width >= 20, "the picture is \(width) px wide")
    // With no wrong row, the last rows.
    #expect(Timeline(events: Array(lateAnswer.prefix(5))).excerpt(rows: 3).steps.map(\.number) == [3, 4, 5])
  }

  @Test("Labels are cut to fit between the lanes they join; the full words stay in the text column")
  func labelsFit() throws {
    let long = RecordedEvent.call(
      "search(a_keyword_far_longer_than_the_space_between_two_lanes) called", to: .service("search"),
      label: "search(a_keyword_far_longer_than_the_space_between_two_lanes)")
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

  @Test(
    "On a slide, a label too long for its lanes wraps onto more lines, each within them, and is never cut")
  func slideLabelsWrap() throws {
    let long = RecordedEvent.call(
      "search(a keyword far longer than the space between two lanes) called", to: .service("search"),
      label: "search(a keyword far longer than the space between two lanes, and_one_word_longer_still)")
    let drawing = TimelineDrawing(Timeline(events: [long]), title: "t", showsWords: false)
    let svg = drawing.svg
    let labels = svg.split(separator: "\n").filter { $0.contains("class=\"label\"") }
    #expect(labels.count > 1, "\(svg)")
    #expect(!svg.contains("…"), "\(svg)")
    let words = labels.compactMap { $0.split(separator: ">").dropFirst().first?.split(separator: "<").first }
    #expect(
      words.joined(separator: " ").replacingOccurrences(of: " ", with: "")
        == "search(a keyword far longer than the space between two lanes, and_one_word_longer_still)"
        .replacingOccurrences(of: " ", with: ""))
    let columns = Int((drawing.gap - 16) / TimelineDrawing.advance)
    #expect(words.allSatisfy { TimelineDrawing.columns($0) <= columns }, "\(words)")
    // The legend wraps too: the picture stays as narrow as its lanes.
    let width = try #require(
      svg.split(separator: "\"").dropFirst().first { Double($0) != nil }.flatMap { Double($0) })
    #expect(width <= TimelineDrawing.slideWidth)
  }

  @Test("What learner code puts in an event is escaped in the picture and the page")
  func escaping() {
    let hostile = RecordedEvent.publish(
      "screen shows [<script>alert(1)</script> & \"quotes\"], error: none", to: .caller("screen <b>"),
      label: "[<script>alert(1)</script> & \"quotes\"]")
    let report = ChapterReport(
      chapter: Curriculum.Chapter(
        number: 4, name: "DebouncedSearch", title: "Debounced search", summary: "S.",
        files: ["SearchModel.swift"],
        hints: [], starterFails: []),
      checks: [
        CheckResult(
          id: "a", name: "Shows <b>", status: .failed,
          issues: [issue(Verdict(behaviour: "B <i>", actual: "<x>", events: [hostile]), at: "T.swift:1")])
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
    let issue = issue(
      Verdict(behaviour: "B", expected: "[Swift Book]", actual: "[Sweater]", events: lateAnswer))
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
      console: console, style: Style(colored: false), directory: root, subcommands: LearnerCommands.table,
      environment: [:])
    let issue = issue(
      Verdict(behaviour: "B", expected: "[Swift Book]", actual: "[Sweater]", events: lateAnswer))
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
        .call("search(\"5\\\" tv\") called", to: .service("search"), label: "search(\"5\\\" tv\")"),
        .answer(
          "search(\"5\\\" tv\") returned [Chocolate (late: its caller was cancelled)]",
          from: .service("search"),
          label: "[Chocolate (late: its caller was cancelled)]"),
        .publish(
          "screen shows [Chocolate], error: none", to: .caller("screen"), label: "[Chocolate], error: none"),
        .answer("profile(id:) returned nil", label: "nil"),
      ],
      expected: "\"Search failed\"", actual: "nil")
    #expect(timeline.steps.filter(\.isWrong).isEmpty)
  }

  @Test("Wide characters and control characters: labels still fit, and the SVG is well-formed XML")
  func wideAndControlCharacters() throws {
    #expect(TimelineDrawing.columns("検索") == 4 && TimelineDrawing.columns("🍫a") == 3)
    #expect(TimelineDrawing.cut("検索検索検索", to: 5) == "検索…")
    let svg = TimelineDrawing(
      Timeline(events: [
        .call(
          "search(\"検索検索検索検索検索検索検索検索検索検索\") called", to: .service("search"),
          label: "search(\"検索検索検索検索検索検索検索検索検索検索\")"),
        .publish(
          "screen shows [bell \u{07}], error: none", to: .caller("screen"),
          label: "[bell \u{07}], error: none"),
      ]),
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

  /// A failing check's issue as the runner receives it from the kit.
  private func issue(_ verdict: Verdict, at location: String? = nil) -> CheckIssue {
    CheckIssue(verdict.text, location: location, verdict: verdict)
  }
}
