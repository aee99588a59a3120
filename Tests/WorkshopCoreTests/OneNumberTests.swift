import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// One state of a learner's copy of a fixture, and the numbers every view
/// must give for it.
struct OneState: Sendable, CustomTestStringConvertible {
  /// The fixture under `Tests/Fixtures/`.
  var fixture: String
  /// What the learner changed: file contents by path from the copy's root.
  var edits: [String: String]
  /// The chapter `watch` is asked for; the others are its second screen.
  var watched: (number: String, name: String)
  /// The other chapter: its number and name.
  var other: (number: String, name: String)
  /// Per chapter, the passing checks "of" all: the watched one's, the other's.
  var watchedPasses: String
  var otherPasses: String
  /// The whole copy's, and what its untouched starters pass.
  var all: (passed: Int, total: Int)
  var starters: Int
  /// What the other chapter's untouched starter passes.
  var otherStarter: Int
  /// How many chapters besides the watched one are done.
  var otherDone: String
  var testDescription: String

  static let solvedAdder = "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n"

  /// ClassWorkshop: chapter 01 solved, chapter 02 as shipped (its starter
  /// fails one check of two).
  static let plain = OneState(
    fixture: "ClassWorkshop", edits: ["Chapters/01-Adder/Adder.swift": solvedAdder],
    watched: ("02", "Greeter"), other: ("01", "Adder"), watchedPasses: "1 of 2", otherPasses: "2 of 2",
    all: (3, 4), starters: 2, otherStarter: 1, otherDone: "1 of 1",
    testDescription: "a chapter solved, one as shipped")

  /// ChecksWorkshop: chapter 01 solved, and in chapter 02, where the
  /// learner writes the checks, a check that catches one broken version of
  /// two: 5 of its 6 items (the two rules, the learner's checks, two
  /// versions caught or accepted of three).
  static let writtenChecks = OneState(
    fixture: "ChecksWorkshop",
    edits: [
      "Chapters/01-Adder/Adder.swift": solvedAdder,
      "Chapters/02-Checks/CounterTests.swift": """
      import Counter
      import Testing

      @Test("Starts at zero") func startsAtZero() { #expect(Counter().value == 0) }

      @Test("One tap counts one") func oneTap() {
        var counter = Counter()
        counter.tap()
        #expect(counter.value == 1)
      }

      """,
    ],
    watched: ("01", "Adder"), other: ("02", "Checks"), watchedPasses: "2 of 2", otherPasses: "5 of 6",
    all: (7, 8), starters: 5, otherStarter: 4, otherDone: "0 of 1",
    testDescription: "a chapter of written checks that catch one broken version of two")

  /// ChecksWorkshop: chapter 01 solved, chapter 02 (written checks) as
  /// shipped: the views that leave its versions for later count what
  /// `curriculum.json` records the starter gives, the others grade them.
  static let untouchedChecks = OneState(
    fixture: "ChecksWorkshop", edits: ["Chapters/01-Adder/Adder.swift": solvedAdder],
    watched: ("01", "Adder"), other: ("02", "Checks"), watchedPasses: "2 of 2", otherPasses: "4 of 6",
    all: (6, 8), starters: 5, otherStarter: 4, otherDone: "0 of 1",
    testDescription: "a chapter of written checks as shipped")

  /// A fresh copy of the fixture in this state, its starters recorded as
  /// `verify --record-starters` does, with the kit's folders a grading of
  /// written checks copies.
  func copy() throws -> Workspace {
    let root = try freshCopyOfFixture("workshop-one-number-\(fixture)-\(edits.count)", of: fixture)
    try? FileManager.default.removeItem(at: root.appendingPathComponent(".workshop"))
    if FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources").path) {
      for folder in ["Sources/CheckTranscript", "Sources/ConcurrencyTestKit", "Sources/SanitizerSupport"] {
        try FileManager.default.copyItem(
          at: courseRoot.appendingPathComponent(folder), to: root.appendingPathComponent(folder))
      }
    }
    try Starters(workspace: try Workspace.locate(from: root)).record()
    for (path, text) in edits {
      try text.write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8)
    }
    return try Workspace.locate(from: root)
  }
}

@Suite("One state, one number in every view", .ownThread)
struct OneNumberTests {
  @Test(
    "The table, check, watch, grade's reports and the class page count one state's passing checks and the starters' the same",
    arguments: [OneState.plain, .writtenChecks, .untouchedChecks])
  func fiveViews(_ state: OneState) async throws {
    let workspace = try state.copy()
    let expected = state
    let (watched, other) = (state.watched, state.other)

    // 1. The progress table.
    let table = workshop([], in: workspace.root).out
    let rows = table.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    func slash(_ passes: String) -> String { passes.replacingOccurrences(of: " of ", with: "/") }
    for (chapter, passes) in [(watched, expected.watchedPasses), (other, expected.otherPasses)] {
      let row = try #require(rows.first { $0.hasPrefix("\(chapter.number)  \(chapter.name)") }, "\(table)")
      #expect(row.contains(slash(passes)), "\(table)")
    }
    #expect(
      table.contains(
        "\(expected.all.passed) of \(expected.all.total) checks pass (the untouched starters pass \(expected.starters))"
      ), "\(table)")

    // 2. check, chapter by chapter.
    let checkedWatched = workshop(["check", watched.number], in: workspace.root).out
    #expect(checkedWatched.contains("\(expected.watchedPasses) checks pass."), "\(checkedWatched)")
    let checkedOther = workshop(["check", other.number], in: workspace.root).out
    #expect(checkedOther.contains("\(expected.otherPasses) checks pass."), "\(checkedOther)")
    #expect(
      checkedOther.contains("The untouched starter passes \(expected.otherStarter)."), "\(checkedOther)")

    // 3. watch: its chapter first, then the others and the whole.
    let watch = WatchDriver(["watch", watched.number], in: workspace)
    defer { watch.stop() }
    let first = try await watch.grading(1)
    #expect(first.contains("\(expected.watchedPasses) checks pass."), "\(first)")
    let second = try await watch.grading(2)
    #expect(
      second.contains(
        "Other chapters: \(expected.otherDone) done · \(expected.all.passed) of \(expected.all.total) checks pass in all"
      ),
      "\(second)")
    #expect(await watch.stopAndWait() == 0)

    // 4. grade, the copy handed in as it is: results.json, class.csv, JUnit.
    let reports = workspace.url(".build/one-number-grades")
    try? FileManager.default.removeItem(at: reports)
    let graded = workshop(
      ["grade", workspace.root.path, "--report-dir", reports.path, "--jobs", "1"]
        + (Sandbox.current == nil ? ["--unsandboxed"] : []), in: workspace.root)
    #expect(graded.status == 0, "\(graded.out)\(graded.err)")
    let name = workspace.root.lastPathComponent
    let results = try JSONDecoder().decode(
      ClassReports.Gradescope.self,
      from: Data(contentsOf: reports.appendingPathComponent("\(name)/results.json")))
    let passing = { (prefix: String) in
      "\(results.tests.filter { $0.name.hasPrefix(prefix) && $0.status == "passed" }.count) of \(results.tests.filter { $0.name.hasPrefix(prefix) }.count)"
    }
    #expect(
      passing(watched.number + " ") == expected.watchedPasses
        && passing(other.number + " ") == expected.otherPasses,
      "\(results.tests)")
    let csv = try String(contentsOf: reports.appendingPathComponent("class.csv"), encoding: .utf8)
    let row = try #require(
      csv.split(whereSeparator: \.isNewline).first { $0.hasPrefix(name + ",") }, "\(csv)")
    let (first01, then02) =
      watched.number == "01"
      ? (expected.watchedPasses, expected.otherPasses) : (expected.otherPasses, expected.watchedPasses)
    #expect(
      row.hasPrefix("\(name),\(expected.all.passed),\(expected.all.total),\(first01),\(then02),"),
      "\(csv)")
    let junit = try String(
      contentsOf: reports.appendingPathComponent("\(name)/junit.xml"), encoding: .utf8)
    #expect(
      junit.contains(
        #"tests="\#(expected.all.total)" failures="\#(expected.all.total - expected.all.passed)""#),
      "\(junit)")

    // 5. The class page: the submission's row.
    let page = try String(contentsOf: reports.appendingPathComponent("class.html"), encoding: .utf8)
    #expect(
      page.contains("<span class=\"score\">\(expected.all.passed)/\(expected.all.total)</span>"), "\(page)")
  }
}
