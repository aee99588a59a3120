import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

@Suite("Code on the slides quotes the course as it is")
struct SlideQuotesTests {
  let file = SlideQuotes.code(
    """
    final class Stats {
      /// How many finished.
      var finishedCount: Int {
        get async {
          // Reads take the lock too.
          finished.withLock { $0 }
        }
      }
      func reset() { finished.withLock { $0 = 0 } }
    }
    """.components(separatedBy: "\n"))

  @Test("A quote may leave lines out, join a block onto one line and change comments")
  func looseButTrue() {
    let quote = SlideQuotes.code(
      [
        "final class Stats {", "  // the fix",
        "  var finishedCount: Int { get async { finished.withLock { $0 } } }",
        "  ...", "}",
      ])
    #expect(SlideQuotes.firstMissing(quote, in: file) == nil)
  }

  @Test("A quote whose code changed, or whose lines are out of order, is caught at its first wrong line")
  func stale() {
    #expect(
      SlideQuotes.firstMissing(SlideQuotes.code(["finished.withLock { $0 + 1 }"]), in: file)
        == "finished.withLock { $0 + 1 }")
    #expect(
      SlideQuotes.firstMissing(
        SlideQuotes.code(["func reset() { finished.withLock { $0 = 0 } }", "get async {"]), in: file)
        == "get async {")
  }

  @Test("A string's words count, a comment's do not, and `//` inside a string is no comment")
  func stringsAndComments() {
    let file = SlideQuotes.code([#"events.record("screen shows \(shown) // now")  // the screen"#])
    #expect(
      SlideQuotes.firstMissing(
        SlideQuotes.code([#"events.record("screen shows \(shown) // now")"#]), in: file) == nil)
    #expect(
      SlideQuotes.firstMissing(SlideQuotes.code([#"events.record("screen shows \(shown)")"#]), in: file)
        == #"events.record("screen shows \(shown)")"#)
    #expect(
      SlideQuotes.firstMissing(
        SlideQuotes.code([#"events.record("screen shows \(shown) // now") // a note"#]), in: file)
        == nil)
  }

  @Test("Fences say what they hold: a path, sketch, or nothing")
  func fences() {
    let blocks = SlideQuotes.blocks(
      in: """
        # Slide
        ```swift Solutions/12-DataRaces/DownloadStats.swift
        let a = 1
        ```
        ```swift sketch
        let b = 2
        ```
        ```swift
        let c = 3
        ```
        """)
    #expect(blocks.map(\.info) == ["Solutions/12-DataRaces/DownloadStats.swift", "sketch", ""])
    #expect(blocks.map(\.line) == [2, 5, 8])
    #expect(blocks.map(\.code) == [["let a = 1"], ["let b = 2"], ["let c = 3"]])
  }

  @Test("The course's decks name every quote, and every quote still matches")
  func course() throws {
    let workspace = try Workspace.locate(from: URL(fileURLWithPath: #filePath))
    #expect(SlideQuotes(workspace: workspace).problems() == [])
  }
}

@Suite("Every deck has the same parts, and lists its chapter's checks")
struct SlideStructureTests {
  /// A deck with every part, whose "The checks" lists `checks`.
  private func deck(number: String, checks: [String], leaving left: String? = nil) -> String {
    let slides = [
      "# Chapter \(number): Adder", "## What users see\n\n- Wrong sums",
      "## The broken code\n\n```swift sketch\n```",
      "## Timeline: two plus three", "## Takeaways\n\n- Add", "## Your turn\n\n- Fix it",
      "## The checks\n\n" + checks.map { "- " + $0 }.joined(separator: "\n") + "\n\n<!--\n- Not a check\n-->",
    ].filter { left == nil || !$0.hasPrefix(left!) }
    return "---\nmarp: true\n---\n\n" + slides.joined(separator: "\n\n---\n\n") + "\n"
  }

  @Test("A list item's wrapped lines are one item; speaker notes are not slides' text")
  func readsSlides() {
    let slides = SlideStructure.slides(
      of: "---\nmarp: true\n---\n\n## The checks\n\n- Adds two\n  numbers\n- Adds zero\n\n<!--\n- note\n-->\n"
    )
    #expect(slides.count == 1)
    #expect(slides[0].heading == "## The checks")
    #expect(slides[0].bullets == ["Adds two numbers", "Adds zero"])
    // A closing remark in parentheses is the slide's, not the check's name.
    #expect(SlideStructure.checkName("Loads it (three runs: a, b)") == "Loads it")
    #expect(SlideStructure.checkName("Loads it") == "Loads it")
  }

  @Test(
    "A deck without a standard part, or whose checks differ from the chapter's, is named with what differs")
  func problems() throws {
    let root = try freshCopyOfFixture("slide-structure", of: "ClassWorkshop")
    let slides = root.appendingPathComponent("Slides")
    try FileManager.default.createDirectory(at: slides, withIntermediateDirectories: true)
    let workspace = try Workspace.locate(from: root)
    let checks = [1: ["Adds two numbers", "Adds zero"], 2: ["Greets by name", "Greets nobody"]]
    let (adder, greeter) = (workspace.curriculum.chapters[0], workspace.curriculum.chapters[1])
    try deck(number: "01", checks: checks[1]!).write(
      to: workspace.url(workspace.slidesFile(adder)), atomically: true, encoding: .utf8)
    try deck(number: "02", checks: ["Greets by name", "Greets everyone"], leaving: "## Timeline").write(
      to: workspace.url(workspace.slidesFile(greeter)), atomically: true, encoding: .utf8)
    let found = SlideStructure(workspace: workspace).problems(checks: checks)
    let deck2 = workspace.slidesFile(greeter)
    #expect(
      found == [
        "\(deck2): no \"## Timeline: …\" slide",
        "\(deck2): \"The checks\" lists \"Greets everyone\", which is no check of chapter 02",
        "\(deck2): \"The checks\" does not list \"Greets nobody\"",
      ])
  }

  @Test("A count of checks on a slide or in its notes that disagrees with the course is named")
  func counts() {
    let checks = ["Adds", "Adds zero", "Subtracts", "Subtracts zero"]
    let starterFails = ["Adds zero", "Subtracts zero"]
    func deck(_ yourTurn: String, _ notes: String, _ continuedNotes: String) -> [SlideStructure.Slide] {
      SlideStructure.slides(
        of: "---\nmarp: true\n---\n\n## Your turn\n\n1. \(yourTurn)\n\n---\n\n## The checks: adding\n\n"
          + "- Adds\n- Adds zero\n\n<!--\n\(notes)\n-->\n\n---\n\n## The checks: adding (continued)\n\n"
          + "<!--\n\(continuedNotes)\n-->\n\n---\n\n## The checks: subtracting\n\n- Subtracts\n- Subtracts zero\n"
      )
    }
    let right = deck(
      "Run `check 01` and note which two checks fail", "Two checks. The starter passes one of them.",
      "Four checks in all; the starter passes two.")
    #expect(
      SlideStructure.countProblems(in: right, deck: "D", checks: checks, starterFails: starterFails) == [])
    let wrong = deck(
      "Run `check 01`: all three checks fail", "Five checks. The starter passes three.", "")
    #expect(
      SlideStructure.countProblems(in: wrong, deck: "D", checks: checks, starterFails: starterFails) == [
        "D: says \"all three checks fail\", but the starter fails 2",
        "D: \"The checks: adding\" says \"Five checks\", but the chapter has 4 and the slide lists 2",
        "D: \"The checks: adding\" says \"The starter passes three\", but the starter passes 2 of the"
          + " chapter's checks and 1 of those listed",
      ])
    #expect(SlideStructure.number("twenty-two") == 22)
    let hyphenated = deck("Run `check 01` and note which twenty-two checks fail", "", "")
    #expect(
      SlideStructure.countProblems(in: hyphenated, deck: "D", checks: checks, starterFails: starterFails) == [
        "D: says \"which twenty-two checks fail\", but the starter fails 2"
      ])
    #expect(SlideStructure.number("7") == 7)
    #expect(SlideStructure.number("several") == nil)
  }

  @Test("The course's decks have every part, and list their chapters' checks as the checks name themselves")
  func course() throws {
    let workspace = try Workspace.locate(from: URL(fileURLWithPath: #filePath))
    let checks = try declaredCheckNames(workspace)
    #expect(checks.count == workspace.curriculum.chapters.filter { !$0.writesChecks }.count)
    #expect(SlideStructure(workspace: workspace).problems(checks: checks) == [])
  }
}

/// Each chapter's check names, as its test files declare them (the course
/// tests' stand-in for the names `verify` takes from the graded solutions).
func declaredCheckNames(_ workspace: Workspace) throws -> [Int: [String]] {
  var checks: [Int: [String]] = [:]
  for chapter in workspace.curriculum.chapters where !chapter.writesChecks {
    let folder = workspace.url("Tests/\(chapter.testFolder)")
    for name in Files.under(folder, suffix: ".swift") {
      let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
      checks[chapter.number, default: []] += text.matches(of: #/@Test\(\s*"((?:[^"\\]|\\.)*)"/#).map {
        String($0.1).replacingOccurrences(of: "\\\"", with: "\"")
      }
    }
  }
  return checks
}
