import CheckTranscript
import Foundation
import Testing

@testable import WorkshopCore

@Suite("Failures point at the learner's code")
struct PointerTests {
  @Test("An exit test's crash shows the runtime's message first, then the check's words on the usual cause")
  func crashExplanationJoinsTheCrash() throws {
    let crash = """
      Expected the code to keep running; the process crashed (SIGILL).
      The app must survive an SDK that calls back twice. A crash here usually comes from resuming a continuation twice.
      (at ContinuationsTests.swift:162)
      """
    let explanation =
      Verdict.crashExplanation(
        runtimeSaid: ["Continuations/ProfileBridge.swift:42: Fatal error: Unexpectedly found nil"])
      + "\n(at ContinuationsTests.swift:170)"
    let merged = try #require(EventStream.mergeCrash(crash, explanation: explanation))
    #expect(
      merged == """
        Expected the code to keep running; the process crashed (SIGILL). The Swift runtime said:
          Continuations/ProfileBridge.swift:42: Fatal error: Unexpectedly found nil
        The app must survive an SDK that calls back twice. A crash here usually comes from resuming a continuation twice.
        (at ContinuationsTests.swift:162)
        """)
    #expect(EventStream.mergeCrash("Some other failure", explanation: explanation) == nil)
  }

  @Test("A check belongs to the exercise whose suite holds it, nested suites included")
  func exerciseOwnsItsChecks() {
    let mirror = Curriculum.Exercise(
      name: "mirror", file: "FastestMirror.swift", suites: ["FastestMirrorTests"], hints: [])
    let stats = Curriculum.Exercise(name: "stats", file: "DownloadStats.swift", suites: ["Stats"], hints: [])
    #expect(mirror.owns(checkID: "TaskGroupsTests.FastestMirrorTests/first()/TaskGroupsTests.swift:240:4"))
    #expect(!mirror.owns(checkID: "TaskGroupsTests.ResizeTests/limit()/TaskGroupsTests.swift:140:4"))
    #expect(stats.owns(checkID: "DataRacesTests.DataRacesTests/Stats/counts()/DataRacesTests.swift:180:6"))
    #expect(
      !stats.owns(checkID: "DataRacesTests.DataRacesTests/Adapter/reports()/DataRacesTests.swift:240:6"))
  }

  @Test(
    "The pointer is the runtime's file and line, else a function it names, else the exercise's first TODO")
  func pointerOrder() throws {
    let workspace = try Workspace.locate(from: URL(fileURLWithPath: #filePath))
    let chapter = try #require(workspace.curriculum.chapter(matching: "06"))
    let pointer = CodePointer(workspace: workspace, variant: .chapters)
    func check(_ issue: String) -> CheckResult {
      CheckResult(
        id: "ContinuationsTests.ContinuationsTests/both()/x.swift:1:1", name: "c", status: .failed,
        issues: [issue])
    }
    let stopped = pointer.locate(
      check("The Swift runtime said:\n  Continuations/ProfileBridge.swift:42: Fatal error: nil"), in: chapter)
    #expect(stopped?.location == "Chapters/06-Continuations/ProfileBridge.swift:42")
    // Another module's file is not the learner's.
    let elsewhere = pointer.locate(
      check(
        "_Concurrency/CheckedContinuation.swift:169: Fatal error: SWIFT TASK CONTINUATION MISUSE: profile(id:) tried"
      ),
      in: chapter)
    let declaration = try #require(elsewhere?.location)
    let text = try String(
      contentsOf: workspace.url("Chapters/06-Continuations/ProfileBridge.swift"), encoding: .utf8)
    let line = try #require(
      text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
        $0.contains("func profile(")
      })
    #expect(declaration == "Chapters/06-Continuations/ProfileBridge.swift:\(line + 1)")
    let todo = pointer.locate(check("Expected: 1\nActual: 2"), in: chapter)
    let todoLine = try #require(
      text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("TODO:") })
    #expect(todo?.location == "Chapters/06-Continuations/ProfileBridge.swift:\(todoLine + 1)")
  }
}
