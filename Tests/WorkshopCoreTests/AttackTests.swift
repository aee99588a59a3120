import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// The fixture workshop, in a copy of its own that these tests change.
private let attacked = blockingTask("the fixture to attack") { () throws -> Workspace in
  try Workspace.locate(from: try freshCopyOfFixture("workshop-fixture-attacks"))
}

private func grade(
  _ numbers: [Int], in workspace: Workspace, isolation: Grader.Isolation = .automatic
) throws -> [ChapterReport] {
  try Grader(workspace: workspace, variant: .chapters, timeLimit: 10, isolation: isolation)
    .grade(workspace.curriculum.chapters.filter { numbers.contains($0.number) })
}

/// Writes `text` to a file and gives it the modification date `date`.
private func write(_ text: String, to url: URL, dated date: Date) throws {
  try text.write(to: url, atomically: false, encoding: .utf8)
  try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
}

/// The `workshop` executable built beside this test product, if there is one.
private let workshopExecutable: URL? = {
  let arguments = ProcessInfo.processInfo.arguments
  guard let product = arguments.first(where: { $0.contains("PackageTests.xctest") }),
    let range = product.range(of: "PackageTests.xctest")
  else { return nil }
  let folder = URL(fileURLWithPath: String(product[..<range.upperBound])).deletingLastPathComponent()
  let executable = folder.appendingPathComponent("workshop")
  return FileManager.default.isExecutableFile(atPath: executable.path) ? executable : nil
}()

@Suite(
  "Learner code that attacks the grader, or a learner's files the grader must not trust", .serialized,
  .ownThread)
struct AttackTests {
  @Test("A missing chapter folder is that chapter's problem; the other chapters are graded")
  func missingChapter() async throws {
    let workspace = try await attacked.value
    let folder = workspace.url("Chapters/01-Passing")
    let saved = workspace.url(".saved-01")
    try? FileManager.default.removeItem(at: saved)
    try FileManager.default.moveItem(at: folder, to: saved)
    defer { try? FileManager.default.moveItem(at: saved, to: folder) }
    let reports = try grade([1, 2], in: workspace)
    #expect(reports[0].state == .doesNotCompile)
    #expect(reports[0].compileErrors.first?.contains("Chapters/01-Passing is missing") == true)
    #expect(reports[1].state == .notStarted)
  }

  @Test(
    "A chapter emptied of its Swift files, or whose checks no longer compile against it, is that chapter's problem"
  )
  func emptiedOrIncompatible() async throws {
    let workspace = try await attacked.value
    let passing = workspace.url("Chapters/01-Passing/Code.swift")
    let failing = workspace.url("Chapters/02-Failing/Code.swift")
    let savedPassing = try String(contentsOf: passing, encoding: .utf8)
    let savedFailing = try String(contentsOf: failing, encoding: .utf8)
    defer {
      try? savedPassing.write(to: passing, atomically: false, encoding: .utf8)
      try? savedFailing.write(to: failing, atomically: false, encoding: .utf8)
    }
    try FileManager.default.removeItem(at: passing)
    // The learner renamed the function the checks call.
    try savedFailing.replacingOccurrences(of: "func add(", with: "func plus(")
      .write(to: failing, atomically: false, encoding: .utf8)
    let reports = try grade([1, 2, 3], in: workspace)
    #expect(reports[0].compileErrors.first?.contains("has no Swift files") == true)
    #expect(reports[1].state == .doesNotCompile)
    #expect(reports[1].compileErrors.first?.hasPrefix("Tests/02-FailingTests/") == true)
    #expect(reports[2].state == .crashed, "chapter 03 is still graded")
  }

  @Test("Grading without the sandbox gives the same results as in it")
  func sameResultsUnsandboxed() async throws {
    let workspace = try await attacked.value
    let chapters = [1, 2, 3, 6, 7]
    let plain = try grade(chapters, in: workspace, isolation: .none).map(\.signature)
    let sandboxed = try grade(chapters, in: workspace).map(\.signature)
    #expect(plain == sandboxed)
  }

  @Test("Edits are graded by content: saved twice in one second, or copied with an old date")
  func freshnessByContent() async throws {
    let workspace = try await attacked.value
    let code = workspace.url("Chapters/02-Failing/Code.swift")
    let original = try String(contentsOf: code, encoding: .utf8)
    defer { try? original.write(to: code, atomically: false, encoding: .utf8) }
    let old = Date(timeIntervalSince1970: 1_700_000_000)
    try write(original.replacingOccurrences(of: "a - b", with: "a + b"), to: code, dated: old)
    #expect(try grade([2], in: workspace)[0].state == .done, "the fixed code, with an old date")
    try write(original, to: code, dated: old)
    #expect(
      try grade([2], in: workspace)[0].state == .notStarted, "the broken code again, with the same date")
  }

  @Test("A test product replaced between runs is rebuilt, not trusted")
  func replacedProduct() async throws {
    let workspace = try await attacked.value
    let build = try Grader(workspace: workspace, variant: .chapters).build()
    try FileManager.default.removeItem(at: build.product)
    try FileManager.default.copyItem(at: URL(fileURLWithPath: "/usr/bin/true"), to: build.product)
    #expect(try grade([2], in: workspace)[0].state == .notStarted)
  }

  @Test("Without a sandbox, code under test that rewrites its checks voids the grade")
  func rewritesChecksUnsandboxed() async throws {
    let workspace = try await attacked.value
    let checks = workspace.url("Tests/08-TampersTests/TampersTests.swift")
    let original = try String(contentsOf: checks, encoding: .utf8)
    defer { try? original.write(to: checks, atomically: false, encoding: .utf8) }
    #expect {
      try grade([8], in: workspace, isolation: .none)
    } throws: { error in
      "\(error)".contains("changed while the checks ran") && "\(error)".contains("Tests/08-TampersTests")
    }
  }

  @Test(
    "Code that overwrites the program running its checks hits only its own product, never the toolchain's helper, and voids the run"
  )
  func programRunningTheChecks() async throws {
    let workspace = try await attacked.value
    let checks = workspace.url("Tests/08-TampersTests/TampersTests.swift")
    let original = try String(contentsOf: checks, encoding: .utf8)
    defer { try? original.write(to: checks, atomically: false, encoding: .utf8) }
    var build = try Grader(workspace: workspace, variant: .chapters).build()
    // On macOS the checks run inside the toolchain's swiftpm-testing-helper,
    // which every `swift test` on the Mac shares. On Linux a stand-in plays
    // it, in this copy: it runs the product under its own name with the
    // helper's arguments, so the code under test sees what it sees on macOS.
    if case .direct = build.launcher.kind {
      let standIn = workspace.url(".build/swiftpm-testing-helper")
      try "#!/bin/bash\nexec -a \"$0\" \"$2\" \"$@\"\n".write(to: standIn, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: standIn.path)
      build.launcher = TestLauncher(
        kind: .testingHelper(.init(helper: standIn.path, frameworkPaths: [], libraryPaths: [])))
    }
    let helper = build.launcher.programs(running: build.product)[0]
    let helperBefore = ContentHash.of(helper)
    let chapter = workspace.curriculum.chapters.filter { $0.number == 8 }
    #expect {
      try Grader(workspace: workspace, variant: .chapters, timeLimit: 10, isolation: .none)
        .run(chapter, build: build)
    } throws: { error in
      "\(error)".contains("changed while the checks ran") && "\(error)".contains("(the test product")
    }
    #expect(ContentHash.of(helper) == helperBefore, "the helper at \(helper.path) was written to")
    #expect(
      ContentHash.of(build.product) == ContentHash.of(URL(fileURLWithPath: "/usr/bin/true")),
      "the fixture wrote to the product, as code under test can")
  }

  @Test(
    "In the sandbox, code under test can change neither its checks nor the test product",
    .enabled(if: Sandbox.current != nil, MissingTool.sandbox))
  func rewritesChecksSandboxed() async throws {
    let workspace = try await attacked.value
    let checks = workspace.url("Tests/08-TampersTests/TampersTests.swift")
    let before = try String(contentsOf: checks, encoding: .utf8)
    let report = try grade([8], in: workspace)[0]
    #expect(report.checks.map(\.status) == [.failed])
    #expect(try String(contentsOf: checks, encoding: .utf8) == before)
  }

  @Test("Without a sandbox, code that stops its parent stops the shell between them, not the grader")
  func stopsParentUnsandboxed() async throws {
    let workspace = try await attacked.value
    // The fixture adds the ID of each process it leaves behind to this file.
    let pidFile = workspace.url(".escaped.pid")
    try Data().write(to: pidFile)
    defer { try? FileManager.default.removeItem(at: pidFile) }
    let report = try grade([9], in: workspace, isolation: .none)[0]
    // Unsandboxed, the processes it leaves in sessions of their own outlive
    // the run (a documented limit): this test ends exactly those.
    let escaped = try String(contentsOf: pidFile, encoding: .utf8).split(separator: "\n").compactMap {
      pid_t($0)
    }
    defer { for pid in escaped { kill(pid, SIGKILL) } }
    #expect(report.checks.count == 1)
    #expect(report.passed == 0)
    // The fixture really left the test's process group, on either platform.
    #expect(!escaped.isEmpty, "the fixture started no process")
    for pid in escaped {
      #expect(getpgid(pid) == pid, "the escaped process \(pid) leads a group of its own")
    }
  }

  @Test(
    "In the sandbox, a process that escapes its group and stops its parent neither stalls the grader nor outlives it",
    .enabled(if: Sandbox.current != nil, MissingTool.sandbox))
  func escapes() async throws {
    let workspace = try await attacked.value
    let report = try grade([9], in: workspace)[0]
    #expect(report.checks.map(\.status) == [.failed])
    #expect(try processes { $0.contains("sleep 271.828") }.isEmpty)
  }

  @Test(
    "SIGTERM or Ctrl-C ends every process the grader started, removes its files, and exits 128 plus the signal",
    .enabled(if: workshopExecutable != nil, "the workshop executable is not built beside these tests"),
    arguments: [SIGTERM, SIGINT])
  func interrupt(signal: Int32) async throws {
    let workspace = try await attacked.value
    // Build first, so that the run below is busy with a hanging check.
    _ = try Grader(workspace: workspace, variant: .chapters).build()
    let runner = Process()
    runner.executableURL = workshopExecutable
    runner.arguments = ["check", "4", "--timeout", "120"]
    runner.currentDirectoryURL = workspace.root
    runner.standardOutput = FileHandle.nullDevice
    runner.standardError = FileHandle.nullDevice
    try runner.run()
    let product = workspace.root.path + "/.build/workshop/"
    func running() throws -> [Substring] { try processes { $0.contains(product) } }
    #expect(try eventually(within: 60) { try !running().isEmpty }, "no check ever started")
    kill(runner.processIdentifier, signal)
    #expect(eventually(within: 10) { !runner.isRunning }, "the grader did not stop")
    guard !runner.isRunning else {
      runner.terminate()
      return
    }
    #expect(runner.terminationStatus == 128 + signal)
    let stopped = try eventually(within: 5) { try running().isEmpty }
    let left = try running()
    #expect(stopped, "still running: \(left)")
    let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
    let folders = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
      .filter { $0.hasPrefix("workshop-\(runner.processIdentifier)-") }
    #expect(folders.isEmpty, "left behind: \(folders)")
  }
}
