import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// `Tests/Fixtures/MiniWorkshop`: one chapter per way learner code can end.
private let fixture = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Fixtures/MiniWorkshop")

/// A working copy of the fixture that keeps its `.build` between runs, so only
/// the first run pays for a cold build.
func freshCopyOfFixture(_ name: String = "workshop-fixture", of source: String = "MiniWorkshop") throws -> URL
{
  let original = fixture.deletingLastPathComponent().appendingPathComponent(source)
  let files = FileManager.default
  // Beside the repository's own build, not in /tmp: nothing a run leaves
  // behind outlives it there.
  let copy = original.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent(".build/" + name)
  try files.createDirectory(at: copy, withIntermediateDirectories: true)
  for item in try files.contentsOfDirectory(atPath: copy.path) where item != ".build" {
    try files.removeItem(at: copy.appendingPathComponent(item))
  }
  for item in try files.contentsOfDirectory(atPath: original.path) where item != ".build" {
    try files.copyItem(at: original.appendingPathComponent(item), to: copy.appendingPathComponent(item))
  }
  // The fixtures build as the course does, with the course's own test entry
  // point (their manifests declare its anchor target as the course's does).
  let entryPoint = Workspace.testEntryPointFolder
  try files.copyItem(
    at: courseRoot.appendingPathComponent(entryPoint), to: copy.appendingPathComponent(entryPoint))
  return copy
}

/// Every subcommand, as `workshop-instructor` runs them.
let courseTable = SubcommandTable(
  LearnerCommands.all + MaintainerCommands.all + InstructorCommands.all)

/// The repository's own checkout.
let courseRoot = fixture.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Whether the grader's builds here seal the event stream (Linux: see `StreamSeal`).
#if os(Linux)
  let sealedPlatform = true
#else
  let sealedPlatform = false
#endif

/// The fixture chapters that attack the grader itself, graded in their own suite.
let attackChapters: Set<Int> = [8, 9]

/// The fixture's chapter of checks that beat (see `quietCheckStops`):
/// graded by its own test, not with the others.
let quietChapter = 14

/// The fixture, graded once for every test of the suite.
private let graded = blockingTask("the fixture, graded") {
  () throws -> (workspace: Workspace, reports: [ChapterReport]) in
  let workspace = try Workspace.locate(from: try freshCopyOfFixture())
  let reports = try Grader(workspace: workspace, variant: .chapters, timeLimit: 5)
    .grade(
      workspace.curriculum.chapters.filter {
        !attackChapters.contains($0.number) && $0.number != quietChapter
      })
  return (workspace, reports)
}

private func report(_ number: Int) async throws -> ChapterReport {
  let reports = try await graded.value.reports
  return try #require(reports.first { $0.chapter.number == number })
}

/// Runs the `workshop` command on the fixture and captures what it prints.
private func workshop(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
  workshop(arguments, in: try await graded.value.workspace.root)
}

/// Runs the `workshop` command in `folder`, without colour, and captures what it prints.
func workshop(_ arguments: [String], in folder: URL) -> (status: Int32, out: String, err: String) {
  let out = Mutex("")
  let err = Mutex("")
  let console = Workshop.Console(
    out: { line in out.withLock { $0 += line + "\n" } },
    err: { line in err.withLock { $0 += line + "\n" } })
  let status = Workshop(
    console: console, style: Style(colored: false), directory: folder,
    subcommands: courseTable, environment: [:]
  ).run(arguments)
  return (status, out.withLock { $0 }, err.withLock { $0 })
}

@Suite("End to end on a fixture workshop", .serialized, .ownThread)
struct EndToEndTests {
  @Test("Every chapter is graded, in course order")
  func allChapters() async throws {
    let reports = try await graded.value.reports
    #expect(reports.map(\.chapter.number) == [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13])
  }

  @Test("A chapter whose checks all pass is done")
  func passing() async throws {
    let passing = try await report(1)
    #expect(passing.state == .done)
    #expect(passing.passed == 2 && passing.checks.count == 2)
  }

  @Test("A failing check is reported from the event stream, not from printed text")
  func failing() async throws {
    let failing = try await report(2)
    #expect(failing.state == .notStarted)
    let adds = try #require(failing.checks.first { $0.name == "Adds two numbers" })
    #expect(adds.status == .failed)
    #expect(adds.issues.first?.description.contains("2 + 3 is 5") == true)
  }

  @Test("A crash fails the check that caused it and the others still get graded")
  func crashing() async throws {
    let crashing = try await report(3)
    #expect(crashing.state == .crashed)
    #expect(crashing.crash?.contains("division by zero in the fixture") == true)
    let statuses = Dictionary(uniqueKeysWithValues: crashing.checks.map { ($0.name, $0.status) })
    #expect(statuses == ["Divides": .passed, "Divides safely": .interrupted])
    let crashed = try #require(crashing.checks.first { $0.name == "Divides safely" })
    #expect(crashed.issues.first?.description.contains("killed by SIG") == true)
    #expect(crashed.issues.first?.description.contains("division by zero in the fixture") == true)
  }

  @Test("A hang fails only the check that hangs, within the chapter's time limit")
  func hanging() async throws {
    let hanging = try await report(4)
    #expect(hanging.state == .timedOut)
    // The time the hanging check had alone: never under what a check that
    // finishes can take (see `Grader.aloneLimit`).
    #expect(hanging.timeLimit == 15)
    let statuses = Dictionary(uniqueKeysWithValues: hanging.checks.map { ($0.name, $0.status) })
    #expect(statuses == ["Waits for a signal": .interrupted, "Answers at once": .passed])
    #expect(hanging.checks.first?.issues.first?.description.contains("Did not finish") == true)
  }

  @Test(
    "A hanging chapter grades the same every time, under load too: a check the run finished keeps its result, the others run alone"
  )
  func hangingIsDeterministic() async throws {
    let workspace = try await graded.value.workspace
    let chapter = try #require(workspace.curriculum.chapters.first { $0.number == 4 })
    let grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 4)
    let build = try grader.build()
    // Two threads that keep both cores busy while the chapter is graded.
    let busy = Atomic(true)
    for _ in 0..<2 {
      Thread.detachNewThread {
        var spins = 0
        while busy.load(ordering: .relaxed) { spins &+= 1 }
      }
    }
    defer { busy.store(false, ordering: .relaxed) }
    var seen: [[String]] = []
    for _ in 0..<3 {
      let report = try #require(try grader.run([chapter], build: build).first)
      seen.append(report.checks.map { "\($0.name): \($0.status) \($0.issues.first ?? "")" })
    }
    #expect(Set(seen).count == 1, "\(seen)")
    #expect(seen[0].contains { $0.hasPrefix("Answers at once: passed") })
    #expect(seen[0].contains { $0.contains("run on its own, it was stopped after 15 s") })
  }

  @Test("A check that a run which did not finish had finished keeps its result; only the others run alone")
  func keepsWhatTheRunDecided() async throws {
    let workspace = try await graded.value.workspace
    let chapter = try #require(workspace.curriculum.chapters.first { $0.number == 4 })
    // 6 s for the whole run, which stops 2 s after it falls silent: time
    // enough for a check that ends at once to end.
    var grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 12)
    let said = Mutex<[String]>([])
    grader.progress = { line in said.withLock { $0.append(line) } }
    let report = try #require(try grader.run([chapter], build: try grader.build()).first)
    let statuses = Dictionary(uniqueKeysWithValues: report.checks.map { ($0.name, $0.status) })
    #expect(statuses == ["Waits for a signal": .interrupted, "Answers at once": .passed])
    let alone = said.withLock { $0 }.filter { $0.contains("on its own") }
    #expect(alone.count == 1 && alone.allSatisfy { $0.contains("“Waits for a signal”") }, "\(alone)")
  }

  @Test(
    "A run in which every running check has been silent for a while is stopped then, not at its time limit")
  func stalledRunStops() async throws {
    let workspace = try await graded.value.workspace
    let build = try Grader(workspace: workspace, variant: .chapters).build()
    let start = ContinuousClock.now
    let outcome = TestRun(build: build, environment: Grader.childEnvironment).run(
      filter: "^HangingTests\\.", timeLimit: 120, stalled: 1)
    let took = ContinuousClock.now - start
    #expect(outcome.timedOut)
    // A minute below the limit: the stall, not the limit, stopped it.
    #expect(took < .seconds(60), "took \(took)")
    // What the run decided before it was stopped is in its stream.
    #expect(outcome.summary.ended.contains { $0.contains("answers()") })
    #expect(!outcome.summary.ended.contains { $0.contains("waits()") })
  }

  @Test(
    "A check alone that beats and then goes quiet is stopped seconds after, one that keeps beating runs to its end"
  )
  func quietCheckStops() async throws {
    let workspace = try await graded.value.workspace
    let chapter = try #require(workspace.curriculum.chapters.first { $0.number == quietChapter })
    let grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 12)
    let start = ContinuousClock.now
    let report = try #require(try grader.run([chapter], build: try grader.build()).first)
    let took = ContinuousClock.now - start
    let checks = Dictionary(uniqueKeysWithValues: report.checks.map { ($0.name, $0) })
    #expect(checks["Keeps moving for four seconds"]?.status == .passed, "\(report.checks)")
    let quiet = try #require(checks["Goes quiet"])
    #expect(quiet.status == .interrupted)
    #expect(
      quiet.issues.first?.description.contains("run on its own, it did nothing for 3 s and was stopped")
        == true)
    // The check that never beats has the time any check gets alone.
    let silent = try #require(checks["Hangs without a beat"])
    #expect(silent.issues.first?.description.contains("run on its own, it was stopped after 15 s") == true)
    #expect(took < .seconds(60), "took \(took)")
  }

  @Test(
    "A run whose only running check beats and then says nothing is stopped as quiet; one without beats is not"
  )
  func quietRunStops() async throws {
    let workspace = try await graded.value.workspace
    let build = try Grader(workspace: workspace, variant: .chapters).build()
    let runner = TestRun(build: build, environment: Grader.childEnvironment)
    let start = ContinuousClock.now
    let quiet = runner.run(filter: "^QuietTests\\..*goesQuiet", timeLimit: 60, quiet: 2)
    #expect(quiet.timedOut && quiet.stoppedQuiet == 2)
    #expect(ContinuousClock.now - start < .seconds(30), "the silence, not the limit, stopped it")
    let moving = runner.run(filter: "^QuietTests\\..*keepsMoving", timeLimit: 60, quiet: 2)
    #expect(moving.isComplete && moving.stoppedQuiet == nil)
    let silent = runner.run(filter: "^QuietTests\\..*hangsWithoutABeat", timeLimit: 4, quiet: 2)
    #expect(silent.timedOut && silent.stoppedQuiet == nil, "no beat: only the limit stops it")
  }

  @Test("A run that takes long says which check it is on")
  func saysWhichCheckRuns() async throws {
    let workspace = try await graded.value.workspace
    let build = try Grader(workspace: workspace, variant: .chapters).build()
    let said = Mutex<[String]>([])
    _ = TestRun(build: build, environment: Grader.childEnvironment).run(
      filter: "^HangingTests\\.", timeLimit: 3, after: 1,
      running: { checks, _ in said.withLock { $0 += checks } })
    let ids = said.withLock { $0 }
    // The hanging check, never the one that finished at once (the suite is
    // running too: the grader shows only the checks it expects).
    #expect(ids.contains { $0.contains("waits()") } && !ids.contains { $0.contains("answers()") }, "\(ids)")
  }

  @Test(
    "A test product in a checkout under /tmp runs, in the sandbox when there is one, as in a fresh clone there"
  )
  func productUnderTmp() async throws {
    let workspace = try await graded.value.workspace
    var build = try Grader(workspace: workspace, variant: .chapters).build()
    let folder = URL(fileURLWithPath: "/tmp/workshop-product-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let copy = folder.appendingPathComponent(".build/debug/" + build.product.lastPathComponent)
    try FileManager.default.createDirectory(
      at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: build.product, to: copy)
    build.product = copy
    let checks = try TestRun(build: build, environment: Grader.childEnvironment).listChecks()
    #expect(checks.contains { $0.id.hasPrefix("PassingTests.") })
  }

  @Test("The time a check gets alone depends only on the chapter's limit and its number of checks")
  func aloneLimit() throws {
    let workspace = Workspace(
      root: URL(fileURLWithPath: "/nonexistent"), curriculum: Curriculum(title: "T", chapters: []))
    let grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 30)
    // Never under what a check that finishes can take: twelve of the kit's
    // bounds for two threads to meet, and 3 s to start.
    #expect(grader.aloneLimit(checks: 2) == 15)
    #expect(grader.aloneLimit(checks: 12) == 15)
    #expect(grader.aloneLimit(checks: 12, sanitized: true) == 63)
    #expect(Grader(workspace: workspace, variant: .chapters, timeLimit: 120).aloneLimit(checks: 2) == 60)
    // The whole run waits at most 6 s before the checks run alone, so a
    // spinning check is named within 6 s + 15 s and the processes' start.
    #expect(grader.wholeRunLimit == 6)
    #expect(Grader(workspace: workspace, variant: .chapters, timeLimit: 5).wholeRunLimit == 2.5)
  }

  @Test("Code that exits with status 0 in a check fails that check, with the cause; the others are graded")
  func exitsEarly() async throws {
    let exits = try await report(6)
    let statuses = Dictionary(uniqueKeysWithValues: exits.checks.map { ($0.name, $0.status) })
    #expect(statuses == ["Adds": .passed, "Answers": .interrupted])
    let answers = try #require(exits.checks.first { $0.name == "Answers" })
    #expect(answers.issues.first?.description.contains("exited with status 0") == true)
    #expect(exits.state != .done)
  }

  @Test("Rewriting the event stream at exit changes no result: the grader read it as it was written")
  func rewritesStream() async throws {
    let rewrites = try await report(7)
    #expect(rewrites.passed == 0)
    #expect(rewrites.checks.map(\.name) == ["Returns two"])
    #expect(
      rewrites.checks.first?.issues.first?.description.contains("something other than Swift Testing wrote")
        == true)
  }

  @Test(
    "A check's end that code under test writes into the event stream, found by its descriptor, counts for nothing: every line the grader reads is sealed",
    .enabled(
      if: sealedPlatform, "the stream is sealed by the grader's test entry point, which SwiftPM uses on Linux"
    ))
  func forgesVerdict() async throws {
    let forged = try await report(12)
    #expect(forged.passed == 0)
    #expect(
      forged.checks.first?.issues.first?.description.contains("something other than Swift Testing wrote")
        == true,
      "\(forged.checks)")
    // The attack is real: the same product, its stream written by Swift
    // Testing itself and not sealed, reports the forged end as a pass.
    let workspace = try await graded.value.workspace
    var build = try Grader(workspace: workspace, variant: .chapters).build()
    #expect(build.sealsStream)
    build.sealsStream = false
    let unsealed = TestRun(build: build, environment: Grader.childEnvironment, sandbox: nil).run(
      filter: "^ForgesVerdictTests\\.", timeLimit: 20)
    #expect(unsealed.isComplete)
    #expect(unsealed.summary.issues.values.allSatisfy { $0.isEmpty }, "\(unsealed.summary.issues)")
    #expect(unsealed.summary.ended.contains { $0.contains("value()") }, "\(unsealed.summary)")
  }

  @Test(
    "A check that could not decide runs again with more time; one that still cannot is undecided, neither passed nor failed"
  )
  func undecided() async throws {
    let report = try await report(13)
    let statuses = Dictionary(uniqueKeysWithValues: report.checks.map { ($0.name, $0.status) })
    #expect(
      statuses == [
        "Decides with more time": .passed, "Decides after the class": .undecided, "Never decides": .undecided,
        "Decides at once": .passed,
      ])
    #expect(report.passed == 2)
    #expect(report.state != .done)
  }

  @Test("A grader that gives undecided checks more time, as grade does after the class, decides more of them")
  func moreTimeAfterTheClass() async throws {
    let workspace = try await graded.value.workspace
    let chapter = try #require(workspace.curriculum.chapters.first { $0.number == 13 })
    var grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 5)
    grader.patience = ClassGrader.afterClassPatience
    let report = try #require(try grader.grade([chapter]).first)
    let statuses = Dictionary(uniqueKeysWithValues: report.checks.map { ($0.name, $0.status) })
    #expect(statuses["Decides after the class"] == .passed)
    #expect(statuses["Never decides"] == .undecided)
  }

  @Test(
    "In the sandbox the kit's verdicts reach the grader also from a Swift Testing that puts no attachment bytes in the stream (6.2)",
    .enabled(if: sealedPlatform && Sandbox.current != nil, "needs the grader's entry point and the sandbox"))
  func verdictsWithoutInlineBytes() async throws {
    let workspace = try await graded.value.workspace
    let build = try Grader(workspace: workspace, variant: .chapters).build()
    var environment = Grader.childEnvironment
    environment["WORKSHOP_STREAM_WITHOUT_BYTES"] = "1"
    let outcome = TestRun(build: build, environment: environment).run(
      filter: "^UndecidedTests\\.", timeLimit: 20)
    #expect(outcome.isComplete)
    let never = try #require(outcome.summary.issues.first { $0.key.contains("neverDecides()") }?.value)
    #expect(never.contains { $0.verdict?.undecided == true }, "\(never)")
  }

  @Test(
    "A chapter with @main or a C file is reported with that cause, and only that chapter",
    arguments: [(10, "@main"), (11, "helper.c is a .c file")])
  func badFiles(number: Int, cause: String) async throws {
    let bad = try await report(number)
    #expect(bad.state == .doesNotCompile)
    #expect(bad.compileErrors.joined().contains(cause))
    #expect(try await report(1).state == .done)
  }

  @Test("A compile error is reported for its chapter with the compiler's words")
  func broken() async throws {
    let broken = try await report(5)
    #expect(broken.state == .doesNotCompile)
    let first = try #require(broken.compileErrors.first)
    #expect(first.hasPrefix("Chapters/05-Broken/Code.swift:1:"))
    #expect(first.contains("undefinedName"))
  }

  @Test("workshop check prints each check and exits 1 while any fails")
  func checkCommand() async throws {
    let (status, out, _) = try await workshop(["check", "2"])
    #expect(status == 1)
    #expect(out.contains("✗ Adds two numbers"))
    #expect(out.contains("✓ Negates"))
    #expect(out.contains("1 of 2 checks pass."))
    let passing = try await workshop(["check", "passing"])
    #expect(passing.status == 0)
    #expect(passing.out.contains("Chapter 01 is done!"))
  }

  @Test("workshop hint shows one more hint each time, then points at the solution; a done chapter needs none")
  func hintCommand() async throws {
    _ = try await workshop(["hint", "2", "--reset"])
    for number in 1...3 {
      let (status, out, _) = try await workshop(["hint", "02"])
      #expect(status == 0)
      #expect(out.contains("Hint \(number) of 3"))
    }
    let (_, out, _) = try await workshop(["hint", "02"])
    #expect(out.contains("That was the last hint"))
    #expect(out.contains("swift run workshop solution 02"))
    // Chapter 01 passes every check: once graded so, no more hints.
    #expect(try await workshop(["check", "01"]).status == 0)
    let done = try await workshop(["hint", "01"])
    #expect(done.status == 0 && done.out.contains("Chapter 01 is done!"), "\(done.out)")
    #expect(!done.out.contains("Hint 1"))
  }

  @Test("An unknown chapter is a usage error with a suggestion")
  func unknownChapter() async throws {
    let (status, out, err) = try await workshop(["check", "pasing"])
    #expect(status == 64)
    #expect(out.isEmpty)
    #expect(err.contains("no chapter 'pasing'. Did you mean 01 (Passing)?"))
  }

  @Test("A chapter number the course does not have is a usage error that says which numbers it has")
  func unknownChapterNumber() async throws {
    let (status, out, err) = try await workshop(["check", "99"])
    #expect(status == 64)
    #expect(out.isEmpty)
    #expect(err.contains("no chapter 99: this workshop has chapters 01 to "), "\(err)")
    #expect(err.contains("swift run workshop list"), "\(err)")
  }
}
