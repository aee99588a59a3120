import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// A copy of `Tests/Fixtures/ClassWorkshop` (two chapters with solutions)
/// whose `curriculum.json` records its starters, as the course's does. One
/// folder for every test of the serialized suite, so that its build is reused.
private func learnerCopy() throws -> Workspace {
  let root = try freshCopyOfFixture("workshop-learner", of: "ClassWorkshop")
  try FileManager.default.removeItem(at: root.appendingPathComponent(".workshop"), ifExists: true)
  try Starters(workspace: try Workspace.locate(from: root)).record()
  return try Workspace.locate(from: root)
}

private let solvedAdder = "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n"
/// Chapter 01 with a compiler error on line 1.
private let brokenAdder = "public func add(_ a: Int, _ b: Int) -> Int { a + }\n"
private let solvedGreeter = #"public func greet(_ name: String) -> String { "Hello, \(name)!" }"# + "\n"

private func write(_ text: String, to path: String, in workspace: Workspace, secondsAgo: Double = 0) throws {
  let url = workspace.url(path)
  try text.write(to: url, atomically: true, encoding: .utf8)
  try FileManager.default.setAttributes(
    [.modificationDate: Date().addingTimeInterval(-secondsAgo)], ofItemAtPath: url.path)
}

private func read(_ path: String, in workspace: Workspace) throws -> String {
  try String(contentsOf: workspace.url(path), encoding: .utf8)
}

private func git(_ arguments: [String], in workspace: Workspace) throws {
  let outcome = try Subprocess.run(
    "git",
    ["-C", workspace.root.path, "-c", "user.name=Learner", "-c", "user.email=l@example.com"] + arguments)
  try #require(outcome.succeeded, "git \(arguments.joined(separator: " ")): \(outcome.standardError)")
}

extension FileManager {
  fileprivate func removeItem(at url: URL, ifExists: Bool) throws {
    if fileExists(atPath: url.path) { try removeItem(at: url) }
  }
}

@Suite("The learner's loop: Next, reset, solution, watch", .serialized, .ownThread)
struct LearnerLoopTests {
  @Test("Next is the chapter edited last that is not done, else the first one not done")
  func nextFollowsTheLearner() throws {
    let workspace = try learnerCopy()
    // Untouched: the first chapter.
    var run = workshop([], in: workspace.root)
    #expect(run.out.contains("Next: chapter 01"), "\(run.out)")

    // Chapter 02 edited (still failing), then chapter 01 edited and solved.
    try write(
      #"public func greet(_ name: String) -> String { "Hi \(name)" }"# + "\n",
      to: "Chapters/02-Greeter/Greeter.swift", in: workspace, secondsAgo: 60)
    run = workshop([], in: workspace.root)
    #expect(run.out.contains("Next: chapter 02"), "\(run.out)")
    try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
    run = workshop([], in: workspace.root)
    #expect(run.out.contains("Next: chapter 02"), "chapter 01 is done now:\n\(run.out)")

    // `check` without a chapter takes the same one, from what grading remembered.
    run = workshop(["check"], in: workspace.root)
    #expect(run.out.contains("Chapter 02 · Greeter"), "\(run.out)")
    #expect(run.err.contains("Chapter 02, Greeter: the chapter you are on."), "\(run.err)")
  }

  @Test(
    "The checks are built without an index through the course's test entry point, and without it through SwiftPM's discovery, with the same results"
  )
  func testEntryPoint() throws {
    let workspace = try learnerCopy()
    let grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 10)
    let chapters = workspace.curriculum.chapters
    let files = FileManager.default
    let scratch = workspace.scratchPath(for: .chapters)
    let index = scratch.appendingPathComponent("debug/index").path
    let plan = scratch.appendingPathComponent("debug.yaml")

    // The copy keeps its build folder between runs: an index an earlier
    // build left is no evidence.
    try files.removeItem(at: URL(fileURLWithPath: index), ifExists: true)
    let build = try grader.build(force: true)
    let reports = try grader.run(chapters, build: build)
    #expect(reports.map(\.checks.count) == [2, 2], "\(reports.map(\.checks))")
    #expect(reports.allSatisfy { $0.checks.filter { $0.status == .passed }.count == 1 })
    #if os(Linux)
      #expect(!files.fileExists(atPath: index), "the grader's build was indexed")
      #expect(try String(contentsOf: plan, encoding: .utf8).contains("TestEntryPointAnchor"))
    #endif

    // An anchor folder without its Swift file (a learner may delete it)
    // declares no target: SwiftPM would find no entry
    // point, so the build keeps its index.
    let anchor = workspace.url(Workspace.testEntryPointFolder + "/Anchor")
    for file in try files.contentsOfDirectory(atPath: anchor.path) where file.hasSuffix(".swift") {
      try files.removeItem(at: anchor.appendingPathComponent(file))
    }
    // What Finder leaves in a folder it showed is no Swift file either.
    try Data().write(to: anchor.appendingPathComponent(".DS_Store"))
    #if os(Linux)
      #expect(
        !Builder(workspace: workspace, variant: .chapters, environment: [:]).swiftBuildArguments.contains(
          Builder.noIndexArgument))
    #endif

    // A course without the entry point: SwiftPM discovers the tests in an index.
    try files.removeItem(at: workspace.url(Workspace.testEntryPointFolder))
    let discovered = try grader.run(chapters, build: grader.build(force: true))
    #expect(discovered.map(\.signature) == reports.map(\.signature))
    #expect(try !String(contentsOf: plan, encoding: .utf8).contains("TestEntryPointAnchor"))
    #if os(Linux)
      #expect(files.fileExists(atPath: index), "SwiftPM's discovery needs the index")
    #endif
  }

  @Test("A chapter that does not compile shows its first error's file:line, and its checks count as failing")
  func brokenChapterInTheTable() throws {
    let workspace = try learnerCopy()
    var run = workshop([], in: workspace.root)
    #expect(run.out.contains("checks pass"), "\(run.out)")
    let total = try #require(run.out.firstMatch(of: /of (\d+) checks pass/)?.1)
    try write(
      brokenAdder, to: "Chapters/01-Adder/Adder.swift",
      in: workspace)
    run = workshop([], in: workspace.root)
    #expect(run.out.contains("does not compile: Chapters/01-Adder/Adder.swift:1"), "\(run.out)")
    #expect(run.out.contains("0/2"), "chapter 01's two checks fail:\n\(run.out)")
    #expect(run.out.contains("of \(total) checks pass"), "the total stays \(total):\n\(run.out)")
  }

  @Test("reset restores the shipped starter after the learner committed, and keeps their files in a backup")
  func resetAfterCommit() throws {
    let workspace = try learnerCopy()
    let starter = try read("Chapters/01-Adder/Adder.swift", in: workspace)
    try FileManager.default.removeItem(at: workspace.url(".git"), ifExists: true)
    try git(["init", "-q"], in: workspace)
    try git(["add", "-A"], in: workspace)
    try git(["commit", "-q", "-m", "The course as shipped"], in: workspace)
    try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
    try write("// Mine.\n", to: "Chapters/01-Adder/Extra.swift", in: workspace)
    try git(["add", "-A"], in: workspace)
    try git(["commit", "-q", "-m", "My fix"], in: workspace)

    let run = workshop(["reset", "1"], in: workspace.root)
    #expect(run.status == 0, "\(run.err)")
    #expect(try read("Chapters/01-Adder/Adder.swift", in: workspace) == starter)
    #expect(!FileManager.default.fileExists(atPath: workspace.url("Chapters/01-Adder/Extra.swift").path))
    let backups = workspace.url(".workshop/backups/01-Adder")
    let saved = try FileManager.default.contentsOfDirectory(atPath: backups.path)
    try #require(saved.count == 1)
    #expect(run.out.contains(".workshop/backups/01-Adder/\(saved[0])/"), "\(run.out)")
    let backup = backups.appendingPathComponent(saved[0])
    #expect(
      try String(contentsOf: backup.appendingPathComponent("Adder.swift"), encoding: .utf8) == solvedAdder)
    #expect(
      try String(contentsOf: backup.appendingPathComponent("Extra.swift"), encoding: .utf8) == "// Mine.\n")
    // The command it prints to put the learner's files back does so.
    let restore = try #require(
      run.out.split(separator: "\n").first { $0.contains("To put yours back: ") }?
        .components(separatedBy: "To put yours back: ").last?.trimmingCharacters(in: ["`"]))
    #expect(restore == "cp -R .workshop/backups/01-Adder/\(saved[0])/. Chapters/01-Adder/", "\(run.out)")
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", restore]
    shell.currentDirectoryURL = workspace.root
    try shell.run()
    shell.waitUntilExit()
    #expect(try read("Chapters/01-Adder/Adder.swift", in: workspace) == solvedAdder)
    #expect(FileManager.default.fileExists(atPath: workspace.url("Chapters/01-Adder/Extra.swift").path))
    try write(starter, to: "Chapters/01-Adder/Adder.swift", in: workspace)
    try FileManager.default.removeItem(at: workspace.url("Chapters/01-Adder/Extra.swift"))

    // Again: nothing to do, and no new backup.
    let again = workshop(["reset", "01"], in: workspace.root)
    #expect(again.out.contains("already as the course shipped it"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: backups.path).count == 1)
  }

  @Test("Without Git, reset uses the copy the runner kept; with neither, it changes nothing and says why")
  func resetWithoutGit() throws {
    let workspace = try learnerCopy()
    let starter = try read("Chapters/02-Greeter/Greeter.swift", in: workspace)
    // A first run keeps the shipped files.
    _ = workshop(["list"], in: workspace.root)
    Starters(workspace: workspace).remember()
    try write(solvedGreeter, to: "Chapters/02-Greeter/Greeter.swift", in: workspace)
    #expect(workshop(["reset", "02"], in: workspace.root).status == 0)
    #expect(try read("Chapters/02-Greeter/Greeter.swift", in: workspace) == starter)

    // Nothing kept and no history: refused, the learner's file untouched.
    try FileManager.default.removeItem(at: workspace.url(".workshop"))
    try write(solvedGreeter, to: "Chapters/02-Greeter/Greeter.swift", in: workspace)
    let refused = workshop(["reset", "02"], in: workspace.root)
    #expect(refused.status == 1)
    #expect(refused.err.contains("Nothing was changed"), "\(refused.err)")
    #expect(try read("Chapters/02-Greeter/Greeter.swift", in: workspace) == solvedGreeter)
  }

  @Test("solution refuses before the chapter is done, offers a hint, and shows the diff once it is")
  func solutionAfterDone() throws {
    let workspace = try learnerCopy()
    let early = workshop(["solution", "01"], in: workspace.root)
    #expect(early.status == 1)
    #expect(early.out.contains("Chapter 01 is not done yet: 1 of 2 checks still fail."), "\(early.out)")
    #expect(early.out.contains("swift run workshop hint 01"))
    #expect(!early.out.contains("a + b"))

    let forced = workshop(["solution", "01", "--force"], in: workspace.root)
    #expect(forced.status == 0)
    #expect(forced.out.contains("+public func add(_ a: Int, _ b: Int) -> Int { a + b }"), "\(forced.out)")

    try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
    let check = workshop(["check", "01"], in: workspace.root)
    #expect(check.out.contains("swift run workshop solution 01"), "the done message names it:\n\(check.out)")
    let done = workshop(["solution", "01"], in: workspace.root)
    #expect(done.status == 0)
    #expect(
      done.out.contains("+// Fixed: `+`, not `-`."), "the reference's comments explain the fix:\n\(done.out)")
  }

  @Test("watch grades a save, and a save that does not compile, without stopping")
  func watchReactsToSaves() async throws {
    let workspace = try learnerCopy()
    let watch = WatchDriver(["watch", "01"], in: workspace)
    defer { watch.stop() }
    func grading(_ count: Int) async throws -> String { try await watch.grading(count) }

    // The chapter asked for first, before the others are graded; then all.
    let asked = try await grading(1)
    #expect(asked.contains("Chapter 01 · Adder  (not started)"), "\(asked)")
    #expect(asked.contains("Other chapters: being graded"), "\(asked)")
    let first = try await grading(2)
    #expect(first.contains("Chapter 01 · Adder  (not started)"), "\(first)")
    #expect(first.contains("Other chapters: 0 of 1 done"), "\(first)")

    try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
    let second = try await grading(3)
    #expect(second.contains("Chapter 01 · Adder  (done)"), "\(second)")

    try write(
      brokenAdder, to: "Chapters/01-Adder/Adder.swift",
      in: workspace)
    let third = try await grading(4)
    #expect(third.contains("It does not compile"), "\(third)")
    #expect(third.contains("Chapters/01-Adder/Adder.swift:1:"), "\(third)")

    // A save in another chapter moves the focus there.
    try write(solvedGreeter, to: "Chapters/02-Greeter/Greeter.swift", in: workspace)
    let fourth = try await grading(5)
    #expect(fourth.contains("Chapter 02 · Greeter  (done)"), "\(fourth)")
    #expect(fourth.contains("does not compile: 01 (Chapters/01-Adder/Adder.swift:1)"), "\(fourth)")

    #expect(await watch.stopAndWait() == 0)
  }
}

extension LearnerLoopTests {
  @Suite("Rebuilding one edited chapter without SwiftPM")
  struct ChapterRebuildTests {
    @Test("check grades one edited chapter without SwiftPM, with the verdict SwiftPM's build gives")
    func checkTakesTheQuickPath() throws {
      let workspace = try learnerCopy()
      let grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 10)
      _ = try grader.build()
      let adder = try #require(workspace.curriculum.chapters.first)
      // Nothing changed: the last build as it is.
      let untouched = try #require(try grader.gradeQuickly(adder)?.first)
      #expect(untouched.state == .notStarted, "\(untouched.checks)")

      // The chapter's file edited: rebuilt from the plan, the same verdict as SwiftPM's.
      let temporary = SwiftPMLock.temporaryFolder(of: workspace.scratchPath(for: .chapters))
      func temporaryItems() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
      }
      let before = Set(temporaryItems())
      try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
      let quick = try #require(try grader.gradeQuickly(adder)?.first)
      #expect(quick.state == .done, "\(quick.checks)")
      let full = try #require(try grader.run([adder], build: grader.build(force: true)).first)
      #expect(quick.signature == full.signature)
      // Its jobs leave nothing in the build's temporary folder.
      #expect(Set(temporaryItems()).subtracting(before).isEmpty, "\(temporaryItems())")
      // The drivers' jobs are kept beside the build folder, where no
      // sandboxed job writes, not in it.
      let scratch = workspace.scratchPath(for: .chapters)
      let jobs = ChapterRebuild(workspace: workspace, variant: .chapters, environment: [:]).driverJobs.folder
      #expect(jobs.deletingLastPathComponent().path == scratch.deletingLastPathComponent().path)
      #expect(try !FileManager.default.contentsOfDirectory(atPath: jobs.path).isEmpty)

      // A compile error: reported for the chapter, at the learner's line.
      try write(brokenAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
      let broken = try #require(try grader.gradeQuickly(adder)?.first)
      #expect(broken.compileErrors.first?.hasPrefix("Chapters/01-Adder/Adder.swift:1:") == true)

      // A check edited too: the quick path steps aside for SwiftPM.
      try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
      let checks = workspace.url("Tests/01-AdderTests/AdderTests.swift")
      try (String(contentsOf: checks, encoding: .utf8) + "\n// edited\n").write(
        to: checks, atomically: true, encoding: .utf8)
      #expect(try grader.gradeQuickly(adder) == nil)
    }

    @Test("An edit inside a chapter is rebuilt from the build plan; a new file or an edited check is not")
    func quickPathAndItsLimits() throws {
      let workspace = try learnerCopy()
      let grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 10)
      let build = try grader.build()
      let adder = try #require(workspace.curriculum.chapters.first)
      let rebuild = ChapterRebuild(
        workspace: workspace, variant: .chapters, environment: Grader.childEnvironment)

      // A body change: compiled and linked, and graded from the new product.
      try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
      guard case .built(let rebuilt, let checksRebuilt) = rebuild.rebuild(adder, after: build) else {
        Issue.record("an edit of one chapter file was not rebuilt quickly")
        return
      }
      #expect(!checksRebuilt)
      let report = try #require(try grader.run([adder], build: rebuilt).first)
      #expect(report.state == .done, "\(report.checks)")
      // The product now is what SwiftPM would build: the next run reuses it.
      #expect(try grader.build().product == rebuilt.product)

      // A compile error: the compiler's own words, at the learner's line.
      try write(
        brokenAdder, to: "Chapters/01-Adder/Adder.swift",
        in: workspace)
      guard case .compileErrors(let errors) = rebuild.rebuild(adder, after: build) else {
        Issue.record("a compile error was not reported")
        return
      }
      #expect(errors.first?.hasPrefix("Chapters/01-Adder/Adder.swift:1:") == true, "\(errors)")

      // A new interface: the checks are compiled again.
      try write(
        solvedAdder + "public func subtract(_ a: Int, _ b: Int) -> Int { a - b }\n",
        to: "Chapters/01-Adder/Adder.swift", in: workspace)
      guard case .built(_, let interfaceChanged) = rebuild.rebuild(adder, after: build) else {
        Issue.record("an interface change was not rebuilt")
        return
      }
      #expect(interfaceChanged)

      // A file added: SwiftPM's plan no longer holds, so no quick path.
      try write("public let extra = 1\n", to: "Chapters/01-Adder/Extra.swift", in: workspace)
      guard case .unavailable = rebuild.rebuild(adder, after: build) else {
        Issue.record("a new file was rebuilt without SwiftPM")
        return
      }
      // Once SwiftPM has built the new file, edits are quick again, and
      // compile with it (the driver's jobs are not reused from before).
      let withExtra = try grader.build()
      try write(
        "public func add(_ a: Int, _ b: Int) -> Int { a + b + extra - 1 }\n",
        to: "Chapters/01-Adder/Adder.swift",
        in: workspace)
      guard case .built = rebuild.rebuild(adder, after: withExtra) else {
        Issue.record("an edit after a new file was built was not rebuilt quickly, with the new file")
        return
      }
      // A plan SwiftPM rewrote since its last complete build is not used.
      let plan = workspace.scratchPath(for: .chapters).appendingPathComponent("debug.yaml")
      try (try String(contentsOf: plan, encoding: .utf8) + "\n").write(
        to: plan, atomically: true, encoding: .utf8)
      guard case .unavailable = rebuild.rebuild(adder, after: withExtra) else {
        Issue.record("a plan other than the last build's was used")
        return
      }
      try FileManager.default.removeItem(at: workspace.url("Chapters/01-Adder/Extra.swift"))
      try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
      // A check edited: not the chapter's own change.
      let checks = workspace.url("Tests/01-AdderTests/AdderTests.swift")
      try (try String(contentsOf: checks, encoding: .utf8) + "\n// edited\n").write(
        to: checks, atomically: true, encoding: .utf8)
      guard case .unavailable = rebuild.rebuild(adder, after: build) else {
        Issue.record("an edited check was rebuilt without SwiftPM")
        return
      }
    }

    @Test(
      "Edits in two chapters are rebuilt in one quick build with SwiftPM's verdicts; a chapter that does not compile is left out of that build's grading"
    )
    func severalChaptersAtOnce() throws {
      let workspace = try learnerCopy()
      let grader = Grader(workspace: workspace, variant: .chapters, timeLimit: 10)
      let build = try grader.build()
      let chapters = workspace.curriculum.chapters
      let rebuild = ChapterRebuild(
        workspace: workspace, variant: .chapters, environment: Grader.childEnvironment)
      let plan = workspace.scratchPath(for: .chapters).appendingPathComponent("debug.yaml")
      let planBefore = try Data(contentsOf: plan)

      // Both chapters solved: one build of both, without SwiftPM (its plan
      // is untouched), graded as SwiftPM's build grades them.
      try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
      try write(solvedGreeter, to: "Chapters/02-Greeter/Greeter.swift", in: workspace)
      guard case .built(let both, let checksRebuilt) = rebuild.rebuildChanged(after: build) else {
        Issue.record("edits of two chapters' files were not rebuilt quickly")
        return
      }
      #expect(checksRebuilt.isEmpty)
      #expect(both.brokenChapters.isEmpty)
      #expect(try Data(contentsOf: plan) == planBefore)
      let quick = try grader.run(chapters, build: both)
      #expect(quick.map(\.state) == [.done, .done], "\(quick.map(\.checks))")
      let forced = try grader.build(force: true)
      let full = try grader.run(chapters, build: forced)
      #expect(quick.map(\.signature) == full.map(\.signature))
      let product = Fingerprint.identity(of: forced.product)

      // Nothing changed since: the last build as it is.
      guard case .built(let same, _) = rebuild.rebuildChanged(after: build) else {
        Issue.record("an unchanged copy was not taken as built")
        return
      }
      #expect(Fingerprint.identity(of: same.product) == product && same.brokenChapters.isEmpty)

      // One chapter broken, the other wrong in a new way: the broken one
      // says where, the other is compiled and graded from the new product.
      try write(brokenAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
      try write(
        #"public func greet(_ name: String) -> String { "Hi, \(name)!" }"# + "\n",
        to: "Chapters/02-Greeter/Greeter.swift",
        in: workspace)
      guard case .built(let mixed, _) = rebuild.rebuildChanged(after: build) else {
        Issue.record("a broken chapter beside an edited one stopped the quick build")
        return
      }
      let errors = try #require(mixed.brokenChapters[1])
      #expect(errors.first?.hasPrefix("Chapters/01-Adder/Adder.swift:1:") == true, "\(errors)")
      #expect(mixed.brokenChapters[2] == nil)
      let greeter = try #require(try grader.run([chapters[1]], build: mixed).first)
      #expect(greeter.state == .inProgress, "\(greeter.checks)")
      #expect(
        greeter.checks.filter { $0.status != .passed }.map(\.name).sorted() == [
          "Greets by name", "Starts with Hello",
        ], "\(greeter.checks)")
      // The broken chapter is still a change, even back to the files the
      // last complete build had: a failed compile may have left some new
      // objects, so the next quick build compiles it again.
      try write(solvedAdder, to: "Chapters/01-Adder/Adder.swift", in: workspace)
      let recordFile = workspace.scratchPath(for: .chapters).appendingPathComponent(
        Fingerprint.Record.fileName)
      let afterBroken = try #require(Fingerprint.Record.load(from: recordFile))
      let changed = ChapterRebuild.changed(
        rebuild.modules, states: Fingerprint.states(workspace: workspace, variant: .chapters),
        record: afterBroken)
      #expect(changed?.map(\.name) == ["Adder"], "\(String(describing: changed))")
      guard case .built(let fixed, _) = rebuild.rebuildChanged(after: build) else {
        Issue.record("a chapter fixed after a broken quick build was not rebuilt")
        return
      }
      #expect(fixed.brokenChapters.isEmpty)
      #expect(try grader.run([chapters[0]], build: fixed).first?.state == .done)

      // A check edited: not the chapters' own change, so SwiftPM builds.
      let checks = workspace.url("Tests/02-GreeterTests/GreeterTests.swift")
      try (try String(contentsOf: checks, encoding: .utf8) + "\n// edited\n").write(
        to: checks, atomically: true, encoding: .utf8)
      guard case .unavailable = rebuild.rebuildChanged(after: build) else {
        Issue.record("an edited check was rebuilt without SwiftPM")
        return
      }
      var quickGrader = grader
      quickGrader.rebuildsWithoutSwiftPM = true
      #expect(try quickGrader.build().brokenChapters.isEmpty)
      let record = try #require(Fingerprint.Record.load(from: recordFile))
      #expect(record.quickBuilt == nil, "SwiftPM's build writes a record of its own")
    }
  }

}

@Suite("Paths relative to where the command ran")
struct RelativePathTests {
  @Test("Paths in output are relative to a folder inside the workshop, folders and trailing slashes included")
  func relative() {
    let root = URL(fileURLWithPath: "/w")
    let inChapter = PathRewriter(
      root: root, directory: URL(fileURLWithPath: "/w/Chapters/04-DebouncedSearch")
    )
    .rewrite
    #expect(
      inChapter("Edit Chapters/04-DebouncedSearch/SearchModel.swift now") == "Edit SearchModel.swift now")
    #expect(inChapter("Open Chapters/01-TaskTree/Dashboard.swift.") == "Open ../01-TaskTree/Dashboard.swift.")
    #expect(inChapter("Edit Chapters/02-TaskGroups/ (A.swift)") == "Edit ../02-TaskGroups/ (A.swift)")
    #expect(inChapter("(at Tests/04-X/Y.swift:3)") == "(at ../../Tests/04-X/Y.swift:3)")
    #expect(inChapter("Watching Chapters/ for saves") == "Watching Chapters/ for saves")
    let atRoot = PathRewriter(root: root, directory: root).rewrite
    #expect(atRoot("Chapters/04-X/Y.swift") == "Chapters/04-X/Y.swift")
    // A tool's absolute path in the workshop is made relative first, the
    // same one way, wherever the command ran.
    #expect(atRoot("/w/Chapters/04-X/Y.swift:3: error: x") == "Chapters/04-X/Y.swift:3: error: x")
    #expect(inChapter("/w/Chapters/04-DebouncedSearch/Y.swift:3: error") == "Y.swift:3: error")
    #expect(atRoot("/elsewhere/Chapters/04-X/Y.swift") == "/elsewhere/Chapters/04-X/Y.swift")
    #expect(PathRewriter(root: root).rewrite("/w/.build/x.log") == ".build/x.log")
    // macOS's real path holds the other spelling: the longer goes first.
    let mac = PathRewriter(spellings: ["/var/folders/x/w/", "/private/var/folders/x/w/"], here: [])
    #expect(mac.rewrite("/private/var/folders/x/w/Chapters/A.swift:3") == "Chapters/A.swift:3")
    #expect(mac.rewrite("/var/folders/x/w/Chapters/A.swift:3") == "Chapters/A.swift:3")
  }
}

extension LearnerLoopTests {
  @Suite("Editor integration")
  struct EditorTests {
    /// The repository's `.vscode/tasks.json`.
    static let tasks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(".vscode/tasks.json")

    /// Every pattern of every problem matcher of the task labelled `label`.
    static func patterns(_ label: String) throws -> [[String]] {
      let json = try JSONSerialization.jsonObject(with: Data(contentsOf: tasks)) as? [String: Any]
      let all = json?["tasks"] as? [[String: Any]] ?? []
      let task = try #require(all.first { $0["label"] as? String == label })
      let matchers = task["problemMatcher"] as? [[String: Any]] ?? []
      return matchers.map { matcher in
        if let one = matcher["pattern"] as? [String: Any] { return [one["regexp"] as? String ?? ""] }
        return (matcher["pattern"] as? [[String: Any]] ?? []).map { $0["regexp"] as? String ?? "" }
      }
    }

    /// The (file, line) pairs VS Code's matchers would find in `output`.
    static func problems(in output: String, patterns: [[String]]) throws -> [String] {
      let lines = output.split(separator: "\n").map(String.init)
      var found: [String] = []
      for pattern in patterns {
        let expressions = try pattern.map { try NSRegularExpression(pattern: $0) }
        for start in lines.indices where start + expressions.count <= lines.count {
          let window = lines[start..<(start + expressions.count)]
          let matches = zip(expressions, window).map { expression, line in
            expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)).map { (line, $0) }
          }
          guard matches.allSatisfy({ $0 != nil }), let (line, last) = matches.last!, last.numberOfRanges >= 3
          else { continue }
          let file = String(line[Range(last.range(at: 1), in: line)!])
          let number = String(line[Range(last.range(at: 2), in: line)!])
          found.append("\(file):\(number)")
        }
      }
      return found
    }

    @Test(
      "A deleted chapter folder is one missing chapter: SwiftPM still builds, the runner says how to restore it"
    )
    func deletedChapterFolder() throws {
      let workspace = try learnerCopy()
      // A run before the folder is lost keeps the starters (this copy has no
      // Git history to restore them from).
      #expect(workshop(["check", "02"], in: workspace.root).out.contains("1 of 2 checks pass."))
      // SwiftPM caches the manifest's evaluation by its text: build once so
      // that the next build reuses an evaluation that names the folder.
      // SwiftPM leaves folders in TMPDIR: keep them inside this copy.
      let temporary = workspace.url(".build/tmp")
      try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
      let environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
      let first = try Subprocess.run(
        "swift", ["build", "--package-path", workspace.root.path], environment: environment, timeout: 600)
      #expect(first.succeeded, "\(first.standardError)")
      try FileManager.default.removeItem(at: workspace.url("Chapters/02-Greeter"))
      let again = try Subprocess.run(
        "swift", ["build", "--package-path", workspace.root.path], environment: environment, timeout: 600)
      #expect(again.succeeded, "\(again.standardOutput)\n\(again.standardError)")
      let (status, out, _) = workshop(["check", "02"], in: workspace.root)
      #expect(status == Workshop.ExitCode.failure)
      #expect(
        out.contains("Chapters/02-Greeter is missing. Restore it (swift run workshop reset 02)."), "\(out)")
      #expect(workshop(["check", "01"], in: workspace.root).out.contains("1 of 2 checks pass."))
      #expect(workshop(["reset", "02"], in: workspace.root).status == 0)
      #expect(FileManager.default.fileExists(atPath: workspace.url("Chapters/02-Greeter/Greeter.swift").path))

      // A folder left with no Swift file: the way back, not a fix in a
      // file that is gone. SwiftPM, reusing its evaluation of the manifest,
      // warns that the target's files belong under Sources/: the runner says
      // that this is the same thing.
      try FileManager.default.removeItem(at: workspace.url("Chapters/01-Adder/Adder.swift"))
      let emptied = try Subprocess.run(
        "swift", ["build", "--package-path", workspace.root.path], environment: environment, timeout: 600)
      #expect(emptied.succeeded, "\(emptied.standardOutput)\n\(emptied.standardError)")
      let checked = workshop(["check", "01"], in: workspace.root).out
      #expect(checked.contains("Chapters/01-Adder has no Swift files."), "\(checked)")
      #expect(
        checked.contains("Run `swift run workshop reset 01` to get the chapter's files back"), "\(checked)")
      #expect(!checked.contains("Fix the error above"), "\(checked)")
      #expect(checked.contains("If SwiftPM warned that source files for target Adder"), "\(checked)")
      #expect(workshop(["reset", "01"], in: workspace.root).status == 0)
      #expect(FileManager.default.fileExists(atPath: workspace.url("Chapters/01-Adder/Adder.swift").path))
    }

    @Test("The VS Code tasks' problem matchers find failing checks and compiler errors at the learner's line")
    func problemMatchers() throws {
      let workspace = try learnerCopy()
      for label in ["Workshop: watch", "Workshop: check the chapter I am on"] {
        let patterns = try Self.patterns(label)
        let failing = workshop(["check", "01"], in: workspace.root).out
        #expect(
          try Self.problems(in: failing, patterns: patterns) == ["Chapters/01-Adder/Adder.swift:2"],
          "\(label):\n\(failing)")
        try write(
          brokenAdder, to: "Chapters/01-Adder/Adder.swift",
          in: workspace)
        let broken = workshop(["check", "01"], in: workspace.root).out
        #expect(
          try Self.problems(in: broken, patterns: patterns) == ["Chapters/01-Adder/Adder.swift:1"],
          "\(label):\n\(broken)")
        #expect(workshop(["reset", "01"], in: workspace.root).status == 0)
      }
    }
  }
}

@Suite("What a quick rebuild compiles")
struct QuickRebuildScopeTests {
  private let modules = [
    ChapterRebuild.Module(name: "Adder", folder: "Chapters/01-Adder", dependents: ["AdderTests"], chapter: 1),
    ChapterRebuild.Module(name: "GreeterTests", folder: "Variants/checks"),
  ]

  private func record(_ files: [String: String]) -> Fingerprint.Record {
    Fingerprint.Record(
      files: files.mapValues { Fingerprint.FileState(hash: $0, second: 0) }, product: "", isComplete: true)
  }

  private func states(_ files: [String: String]) -> [String: Fingerprint.FileState] {
    files.mapValues { Fingerprint.FileState(hash: $0, second: 0) }
  }

  @Test(
    "Only the modules with a changed, added or removed file are compiled; a change outside them needs SwiftPM"
  )
  func changedModules() {
    let last = record([
      "Chapters/01-Adder/Adder.swift": "a", "Variants/checks/Checks.swift": "c",
      "Tests/01-AdderTests/T.swift": "t",
    ])
    // Nothing changed.
    #expect(ChapterRebuild.changed(modules, states: states(last.inputs), record: last)?.isEmpty == true)
    // One file edited: its module alone.
    var now = last.inputs
    now["Variants/checks/Checks.swift"] = "c2"
    #expect(
      ChapterRebuild.changed(modules, states: states(now), record: last)?.map(\.name) == ["GreeterTests"])
    // A file removed from the other: both.
    now["Chapters/01-Adder/Adder.swift"] = nil
    #expect(
      ChapterRebuild.changed(modules, states: states(now), record: last)?.map(\.name) == [
        "Adder", "GreeterTests",
      ])
    // Asked about Adder alone, an edit of the other module is a change outside it.
    var other = last.inputs
    other["Variants/checks/Checks.swift"] = "c2"
    #expect(ChapterRebuild.changed([modules[0]], states: states(other), record: last) == nil)
    #expect(ChapterRebuild.changed([modules[0]], states: states(last.inputs), record: last)?.isEmpty == true)
    // A check edited: no module holds it.
    now["Tests/01-AdderTests/T.swift"] = "t2"
    #expect(ChapterRebuild.changed(modules, states: states(now), record: last) == nil)
    // A folder's name that starts another's is not that folder.
    #expect(
      ChapterRebuild.changed(
        modules, states: states(last.inputs.merging(["Chapters/01-Adder2/X.swift": "x"]) { $1 }), record: last
      )
        == nil)
  }
}
