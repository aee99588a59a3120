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
