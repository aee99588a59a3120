import CheckTranscript
import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

@Suite("Failures point at the learner's code")
struct PointerTests {
  @Test("An exit test's crash shows the runtime's message first, then the check's words on the usual cause")
  func crashExplanationJoinsTheCrash() throws {
    var crash = CheckIssue(
      """
      Expected the code to keep running; the process crashed (SIGILL).
      The app must survive an SDK that calls back twice. A crash here usually comes from resuming a continuation twice.
      """, location: "ContinuationsTests.swift:162")
    crash.isCrash = true
    let said = ["Continuations/ProfileBridge.swift:42: Fatal error: Unexpectedly found nil"]
    let explanation = CheckIssue(
      "The Swift runtime said:\n  " + said[0], location: "ContinuationsTests.swift:170",
      verdict: Verdict(behaviour: "", events: [], runtimeSaid: said))
    let merged = try #require(EventStream.mergeCrash(crash, explanation: explanation))
    #expect(
      merged.description == """
        Expected the code to keep running; the process crashed (SIGILL). The Swift runtime said:
          Continuations/ProfileBridge.swift:42: Fatal error: Unexpectedly found nil
        The app must survive an SDK that calls back twice. A crash here usually comes from resuming a continuation twice.
        """)
    #expect(merged.runtimeSaid == said)
    #expect(EventStream.mergeCrash("Some other failure", explanation: explanation) == nil)
    // Only the kit's verdict with the runtime's words joins a crash, not words that look like it.
    #expect(
      EventStream.mergeCrash(crash, explanation: CheckIssue("The Swift runtime said:\n  " + said[0])) == nil)
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
    /// A failing check whose process died saying `said`, or whose kit
    /// verdict says what never finished.
    func check(runtimeSaid said: String = "", unfinished: String? = nil) -> CheckResult {
      let verdict = unfinished.map { Verdict(behaviour: "\($0) never finished.", events: [], unfinished: $0) }
      return CheckResult(
        id: "ContinuationsTests.ContinuationsTests/both()/x.swift:1:1", name: "c", status: .failed,
        issues: [CheckIssue("It failed", verdict: verdict, runtimeSaid: said.isEmpty ? [] : [said])])
    }
    let stopped = pointer.locate(
      check(runtimeSaid: "Continuations/ProfileBridge.swift:42: Fatal error: nil"), in: chapter)
    #expect(stopped?.location == "Chapters/06-Continuations/ProfileBridge.swift:42")
    // Another module's file is not the learner's.
    let elsewhere = pointer.locate(
      check(
        runtimeSaid:
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
    // Where the backtrace says the crashed thread stopped (the second
    // resume) comes before the function the message names.
    let resumedTwice = pointer.locate(
      check(
        runtimeSaid:
          "_Concurrency/CheckedContinuation.swift:169: Fatal error: SWIFT TASK CONTINUATION MISUSE: profile(id:) tried\n"
          + "Stopped at 06-Continuations/ProfileBridge.swift:\(line + 3), in closure #1 in profile(id:)"),
      in: chapter)
    #expect(resumedTwice?.location == "Chapters/06-Continuations/ProfileBridge.swift:\(line + 3)")
    #expect(resumedTwice?.what == "where it stopped")
    // Another chapter's folder, or a file the chapter does not have, is not the learner's here.
    for elsewhere in ["07-CancellableBridges/ProfileBridge.swift:3", "06-Continuations/Gone.swift:3"] {
      let found = pointer.locate(
        check(runtimeSaid: "Fatal error: x\nStopped at \(elsewhere), in f()"), in: chapter)
      #expect(found?.location != "Chapters/" + elsewhere.replacingOccurrences(of: ":3", with: "") + ":3")
    }
    // A place the grader found (a data race's access) comes first.
    let raced = CheckResult(
      id: "ContinuationsTests.ContinuationsTests/both()/x.swift:1:1", name: "c", status: .failed,
      issues: [CheckIssue("Data race", codeLocation: "Chapters/06-Continuations/ProfileBridge.swift:7")])
    #expect(pointer.locate(raced, in: chapter)?.location == "Chapters/06-Continuations/ProfileBridge.swift:7")
    // The operation the hang guard gave up on, from the verdict's values.
    #expect(pointer.locate(check(unfinished: "profile(id:)"), in: chapter)?.location == declaration)
    // The same words in prose point nowhere in particular.
    let todo = pointer.locate(
      CheckResult(
        id: "ContinuationsTests.ContinuationsTests/both()/x.swift:1:1", name: "c", status: .failed,
        issues: ["profile(id:) never finished.\nExpected: 1\nActual: 2"]), in: chapter)
    let todoLine = try #require(
      text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("TODO:") })
    #expect(todo?.location == "Chapters/06-Continuations/ProfileBridge.swift:\(todoLine + 1)")
  }

  @Test(
    "A check points at the declaration it names, its own or its suite's, where it is in the learner's file now"
  )
  func pointsAtTheExercisedDeclaration() throws {
    let workspace = try Workspace.locate(from: URL(fileURLWithPath: #filePath))
    let chapter = try #require(workspace.curriculum.chapter(matching: "04"))
    let tests = try String(
      contentsOf: workspace.url("Tests/04-DebouncedSearchTests/DebouncedSearchTests.swift"), encoding: .utf8
    ).split(separator: "\n", omittingEmptySubsequences: false)
    func id(of function: String) throws -> String {
      let body = try #require(tests.firstIndex { $0.contains("func \(function)(") })
      let attribute = try #require(tests[..<body].lastIndex { $0.contains("@Test(") })
      return
        "DebouncedSearchTests.DebouncedSearchTests/\(function)()/DebouncedSearchTests.swift:\(attribute + 1):4"
    }
    let exercised = ExercisedDeclarations(workspace: workspace)
    // Its own trait wins over the suite's.
    #expect(
      exercised.declaration(ofCheck: try id(of: "stopDropsLateAnswer"), in: chapter) == "SearchModel.stop()")
    let suiteWide = try #require(tests.firstIndex { $0.contains("@Test(") })
    let firstCheck = try #require(tests[suiteWide...].firstIndex { $0.contains("func ") })
    let name = String(try #require(tests[firstCheck].firstMatch(of: /func (\w+)\(/)?.output.1))
    #expect(
      exercised.declaration(ofCheck: try id(of: name), in: chapter) == "SearchModel.searchTextDidChange(_:)")

    // The pointer follows the learner's edits: two lines added above it move it by two.
    var moved = workspace
    moved.root = try TemporaryFolder.shared.makeFolder("pointer")
    for path in [
      "curriculum.json", "Tests/04-DebouncedSearchTests/DebouncedSearchTests.swift",
      "Chapters/04-DebouncedSearch/SearchModel.swift",
    ] {
      try FileManager.default.createDirectory(
        at: moved.url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
      try FileManager.default.copyItem(at: workspace.url(path), to: moved.url(path))
    }
    let starter = try String(
      contentsOf: moved.url("Chapters/04-DebouncedSearch/SearchModel.swift"), encoding: .utf8)
    let stopLine =
      try #require(
        starter.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
          $0.contains("func stop()")
        }) + 1
    let check = CheckResult(
      id: try id(of: "stopDropsLateAnswer"), name: "c", status: .failed, issues: ["Expected: 1\nActual: 2"])
    let pointer = CodePointer(workspace: moved, variant: .chapters)
    #expect(
      pointer.locate(check, in: chapter)?.location
        == "Chapters/04-DebouncedSearch/SearchModel.swift:\(stopLine)")
    // A comment naming `func stop()` above the real one is not its declaration.
    try ("// func stop() is below\n\n" + starter).write(
      to: moved.url("Chapters/04-DebouncedSearch/SearchModel.swift"), atomically: true, encoding: .utf8)
    #expect(
      pointer.locate(check, in: chapter)?.location
        == "Chapters/04-DebouncedSearch/SearchModel.swift:\(stopLine + 2)")
    #expect(pointer.locate(check, in: chapter)?.what == "SearchModel.stop()")
  }

  @Test("Overloads are told apart by their first label")
  func labelledOverloads() {
    #expect(
      ExercisedDeclarations.split("StreamDelegate.provider(didStopWith:)") == ("StreamDelegate", "provider"))
    #expect(ExercisedDeclarations.split("DashboardModel") == ("DashboardModel", nil))
    #expect(ExercisedDeclarations.split("checksum(of:)") == (nil, "checksum"))
    #expect(ExercisedDeclarations.firstLabel("provider(didStopWith:)") == "didStopWith")
    #expect(ExercisedDeclarations.firstLabel("searchTextDidChange(_:)") == "_")
  }

  @Test("Names that are not Swift names find nothing, and stop nothing")
  func oddNames() throws {
    let workspace = try Workspace.locate(from: URL(fileURLWithPath: #filePath))
    let chapter = try #require(workspace.curriculum.chapter(matching: "04"))
    let exercised = ExercisedDeclarations(workspace: workspace)
    #expect(exercised.location(of: "Search(Model.st[op()", in: chapter, variant: .chapters) == nil)
    #expect(exercised.location(of: "SearchModel.stop(a*:)", in: chapter, variant: .chapters) != nil)
    #expect(
      exercised.declaration(
        ofCheck: "DebouncedSearchTests.Odd(+[/Inner)/x()/DebouncedSearchTests.swift:99999:1", in: chapter)
        == nil)
  }

  @Test("A hint about some checks helps only while one of them fails; one about none, always")
  func hintsFollowTheFailingChecks() throws {
    let hints = try JSONDecoder().decode(
      [Curriculum.Hint].self,
      from: Data(#"["General", {"text": "About stop", "about": ["stopDropsLateAnswer"]}]"#.utf8))
    #expect(hints.map(\.text) == ["General", "About stop"])
    let failing = [
      "DebouncedSearchTests.DebouncedSearchTests/stopDropsLateAnswer()/DebouncedSearchTests.swift:211:4"
    ]
    #expect(hints[1].isAbout(anyOf: failing))
    #expect(!hints[1].isAbout(anyOf: ["DebouncedSearchTests.DebouncedSearchTests/other()/x.swift:1:1"]))
    #expect(hints[0].isAbout(anyOf: [String]()))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let encoded = String(decoding: try encoder.encode(hints), as: UTF8.self)
    #expect(encoded == #"["General",{"about":["stopDropsLateAnswer"],"text":"About stop"}]"#)
  }
}
