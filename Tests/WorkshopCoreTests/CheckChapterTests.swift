import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// A chapter whose checks the learner writes, against component `Widget`.
private let checksChapter = Curriculum.Chapter(
  number: 13, name: "Checking", title: "Checking", summary: "", files: ["WidgetTests.swift"], hints: [],
  starterFails: [], component: "Widget")

/// A workspace in a temporary folder holding `files` (path to text).
private func workspace(_ files: [String: String]) throws -> Workspace {
  let root = try TemporaryFolder.shared.makeFolder("checks-chapter")
  for (path, text) in files {
    let url = root.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }
  return Workspace(root: root, curriculum: Curriculum(title: "T", chapters: [checksChapter]))
}

private let pristine = "public struct Widget { public var size: Int { 1 } }\n"

private func version(_ name: String, kind: String, size: Int) throws -> Mutation {
  try Mutation.parse(
    """
    # has size \(size)
    kind: \(kind)
    --- Widget.swift
    <<<<<<< find
    { 1 }
    =======
    { \(size) }
    >>>>>>> replace

    """, name: name)
}

@Suite("Chapters in which the learner writes the checks")
struct CheckChapterTests {
  @Test("curriculum.json's component makes the chapter's folder its test module")
  func component() throws {
    #expect(checksChapter.writesChecks)
    #expect(checksChapter.codeModule == "CheckingTests")
    let plain = Curriculum.Chapter(
      number: 1, name: "Plain", title: "", summary: "", files: [], hints: [], starterFails: [])
    #expect(!plain.writesChecks)
    #expect(plain.codeModule == "Plain")
  }

  @Test("Waiting for real time is found with file and line, and comments are not")
  func realWaits() throws {
    let space = try workspace([
      "Chapters/13-Checking/WidgetTests.swift": """
      import Testing
      // Task.sleep in a comment is fine
      @Test func a() async throws {
        try await Task.sleep(for: .milliseconds(10))
        await Task.yield()
        let clock = ContinuousClock()
      }
      """
    ])
    let grader = Grader(workspace: space, variant: .chapters)
    let found = grader.realWaits(in: checksChapter)
    #expect(
      found == [
        "Chapters/13-Checking/WidgetTests.swift:4: Task.sleep waits for real time",
        "Chapters/13-Checking/WidgetTests.swift:5: Task.yield hopes another task got somewhere; await what you wait for",
        "Chapters/13-Checking/WidgetTests.swift:6: a ContinuousClock runs in real time",
      ])
  }

  @Test("Settling by tasks, hops or continuations that do nothing is found, however it is spaced")
  func spinningWaits() throws {
    let space = try workspace([
      "Chapters/13-Checking/WidgetTests.swift": """
      @Test func a() async throws {
        for _ in 0..<100 { await Task {}.value }
        await Task.detached { }.value
        await Task(priority: .low) { () }.value
        await MainActor.run {}
        await withCheckedContinuation { $0.resume() }
        let answer = await Task { await server.answer() }.value
      }
      """
    ])
    let found = Grader(workspace: space, variant: .chapters).realWaits(in: checksChapter)
    #expect(found.map { $0.split(separator: ":")[1] } == ["2", "3", "4", "5", "6"], "\(found)")
  }

  @Test("A check that reads files, the process or its own source's place is found, in subfolders too")
  func outside() throws {
    let space = try workspace([
      "Chapters/13-Checking/Helpers/Peek.swift": """
      let here = #fileID
      let text = try? String(contentsOf: URL(fileURLWithPath: "x"), encoding: .utf8)
      let argv = CommandLine.arguments
      let fine = reopenCount  // not a call to open(
      """
    ])
    let found = Grader(workspace: space, variant: .chapters).lines(
      in: checksChapter, matching: Grader.outsidePatterns)
    #expect(
      found == [
        "Chapters/13-Checking/Helpers/Peek.swift:1: reads where its own source is",
        "Chapters/13-Checking/Helpers/Peek.swift:2: reads files",
        "Chapters/13-Checking/Helpers/Peek.swift:3: reads the process's arguments or environment",
      ])
  }

  @Test(
    "Each version gets a folder of its own under a name that hides it, beside one copy of the learner's checks"
  )
  func variantWorkspace() throws {
    let space = try workspace([
      "Package.swift": "// manifest\n", "curriculum.json": "{}\n",
      "Sources/Widget/Widget.swift": pristine,
      "Chapters/13-Checking/WidgetTests.swift": "// the learner's checks\n",
    ])
    let versions = [
      try version("bigger", kind: "wrong", size: 2), try version("same", kind: "right", size: 1),
    ]
    let copy = try VariantWorkspace.prepare(
      for: checksChapter, variants: versions, from: space, variant: .chapters)
    let bigger = copy.ids["bigger"]!
    #expect(!bigger.contains("bigger"))
    // One module of checks, named as in the learner's own build, whatever the version.
    #expect(copy.testModule == "CheckingTests")
    let variants = copy.workspace.root.appendingPathComponent("Variants")
    #expect(
      try String(contentsOf: variants.appendingPathComponent("\(bigger)/Widget.swift"), encoding: .utf8)
        == "public struct Widget { public var size: Int { 2 } }\n")
    #expect(
      try String(contentsOf: variants.appendingPathComponent("checks/WidgetTests.swift"), encoding: .utf8)
        == "// the learner's checks\n")
    // The component itself, which the checks are compiled against.
    #expect(
      try String(
        contentsOf: copy.workspace.root.appendingPathComponent("Sources/Widget/Widget.swift"), encoding: .utf8
      )
        == pristine)
    #expect(copy.environment([:])["WORKSHOP_COMPONENT_VARIANTS"] == "Widget")

    // The same names next time (so builds stay incremental); a version
    // no longer graded leaves no folder behind.
    let again = try VariantWorkspace.prepare(
      for: checksChapter, variants: [versions[0]], from: space, variant: .chapters)
    #expect(again.ids["bigger"] == bigger)
    let left = try FileManager.default.contentsOfDirectory(atPath: variants.path).filter {
      !$0.hasPrefix(".")
    }.sorted()
    #expect(left == [bigger, "checks"].sorted())
  }

  @Test("A check's duration is read from its start and end events")
  func durations() {
    let stream = #"""
      {"kind":"event","payload":{"kind":"testStarted","testID":"M.S/a()","messages":[],"instant":{"absolute":10.25,"since1970":1}},"version":0}
      {"kind":"event","payload":{"kind":"testEnded","testID":"M.S/a()","messages":[],"instant":{"absolute":11.75,"since1970":2}},"version":0}
      """#
    let summary = EventStream.summary(of: EventStream.records(fromJSONLines: stream))
    #expect(summary.durations["M.S/a()"] == 1.5)
  }
}
