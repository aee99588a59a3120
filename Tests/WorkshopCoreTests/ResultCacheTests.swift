import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// Two chapters, in a workspace of their own in a temporary folder.
private func workspace() throws -> Workspace {
  let root = try TemporaryFolder.shared.makeFolder("result-cache")
  let chapters = [1, 2].map { number in
    Curriculum.Chapter(
      number: number, name: "Chapter\(number)", title: "Chapter \(number)", summary: "", files: ["A.swift"],
      hints: [], starterFails: [])
  }
  let files = [
    "Package.swift": "// manifest\n", "curriculum.json": "{}\n",
    "Chapters/01-Chapter1/A.swift": "let a = 1\n", "Chapters/02-Chapter2/A.swift": "let b = 2\n",
    "Tests/01-Chapter1Tests/T.swift": "// checks\n", "Sources/Kit/K.swift": "// kit\n",
  ]
  for (path, text) in files {
    let url = root.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }
  return Workspace(root: root, curriculum: Curriculum(title: "T", chapters: chapters))
}

/// A workshop of two chapters, the cache of an unsandboxed grader of it, and
/// both chapters' passing results kept.
private func keptResults() throws -> (Workspace, ResultCache, [Curriculum.Chapter]) {
  let space = try workspace()
  let cache = ResultCache(Grader(workspace: space, variant: .chapters, isolation: .none))
  let chapters = space.curriculum.chapters
  cache.store(chapters.map(passing), gradedFrom: cache.snapshot())
  return (space, cache, chapters)
}

private func passing(_ chapter: Curriculum.Chapter) -> ChapterReport {
  ChapterReport(chapter: chapter, checks: [CheckResult(id: "M.a()", name: "A check", status: .passed)])
}

@Suite("The progress table's kept results")
struct ResultCacheTests {
  @Test("A chapter is graded again when its own files change, and only that chapter")
  func chapterChange() throws {
    let (space, cache, chapters) = try keptResults()
    let (kept, stale) = cache.lookUp(chapters, in: cache.snapshot())
    #expect(kept.map(\.chapter.number) == [1, 2])
    #expect(stale.isEmpty)

    try "let a = 3\n".write(to: space.url("Chapters/01-Chapter1/A.swift"), atomically: true, encoding: .utf8)
    let after = cache.lookUp(chapters, in: cache.snapshot())
    #expect(after.reused.map(\.chapter.number) == [2])
    #expect(after.stale.map(\.number) == [1])
  }

  @Test("Every chapter is graded again when the course's checks, kit or manifest change")
  func courseChange() throws {
    let (space, cache, chapters) = try keptResults()
    for (path, text) in [
      ("Tests/01-Chapter1Tests/T.swift", "// new checks\n"), ("Sources/Kit/K.swift", "// new kit\n"),
      ("Package.swift", "// new manifest\n"),
    ] {
      try text.write(to: space.url(path), atomically: true, encoding: .utf8)
      #expect(cache.lookUp(chapters, in: cache.snapshot()).stale.count == 2, "after changing \(path)")
      cache.store(chapters.map(passing), gradedFrom: cache.snapshot())
    }
  }

  @Test("A save made while grading ran is a change: that chapter is graded again next time")
  func saveDuringGrading() throws {
    let space = try workspace()
    let cache = ResultCache(Grader(workspace: space, variant: .chapters, isolation: .none))
    let chapters = space.curriculum.chapters
    let before = cache.snapshot()
    try "let b = 5\n".write(to: space.url("Chapters/02-Chapter2/A.swift"), atomically: true, encoding: .utf8)
    cache.store(chapters.map(passing), gradedFrom: before)
    #expect(cache.lookUp(chapters, in: cache.snapshot()).stale.map(\.number) == [2])
  }

  @Test("Crashes, time-outs and checks without a result are never kept; other options are other results")
  func onlyFacts() throws {
    let space = try workspace()
    let grader = Grader(workspace: space, variant: .chapters, isolation: .none)
    let cache = ResultCache(grader)
    let chapters = space.curriculum.chapters
    var crashed = passing(chapters[0])
    crashed.crash = "signal 11"
    var stuck = passing(chapters[1])
    stuck.checks[0].status = .interrupted
    cache.store([crashed, stuck], gradedFrom: cache.snapshot())
    #expect(cache.lookUp(chapters, in: cache.snapshot()).stale.count == 2)

    cache.store(chapters.map(passing), gradedFrom: cache.snapshot())
    var longer = grader
    longer.timeLimit = 60
    let other = ResultCache(longer)
    #expect(other.lookUp(chapters, in: other.snapshot()).stale.count == 2)
  }
}

@Suite("SwiftPM's build system")
struct BuildSystemTests {
  @Test(
    "Every build names the native build system, whose layout the runner reads, so SwiftPM 6.4's default changes nothing"
  )
  func nativeBuildSystem() throws {
    let space = try workspace()
    for builder in [
      Builder(workspace: space, variant: .solutions, environment: [:]),
      Builder(workspace: space, variant: .chapters, environment: [:]),
      Builder(workspace: space, variant: .chapters, sanitizer: .thread, environment: [:]),
    ] {
      let arguments = builder.swiftBuildArguments
      let index = try #require(arguments.firstIndex(of: "--build-system"))
      #expect(arguments[index + 1] == "native")
    }
  }
}

@Suite("The course's own code builds without warnings")
struct CourseWarningsTests {
  @Test("The solutions build treats warnings as errors; a learner's build and the race build do not")
  func warningsAsErrors() throws {
    let space = try workspace()
    let flag = "-warnings-as-errors"
    #expect(
      Builder(workspace: space, variant: .solutions, environment: [:]).swiftBuildArguments.contains(flag))
    #expect(
      !Builder(workspace: space, variant: .chapters, environment: [:]).swiftBuildArguments.contains(flag))
    #expect(
      !Builder(workspace: space, variant: .solutions, sanitizer: .thread, environment: [:])
        .swiftBuildArguments
        .contains(flag))
  }
}

@Suite("The progress table's kept results, against code that writes them")
struct ResultCacheTamperTests {
  @Test("Results written to the file by anything else while grading ran are dropped, not kept")
  func writtenMeanwhile() throws {
    let (_, cache, chapters) = try keptResults()
    let before = cache.snapshot()
    // Code under test, unsandboxed, rewrites the file while chapter 01 is graded.
    var text = try String(contentsOf: cache.file, encoding: .utf8)
    text += " "
    try text.write(to: cache.file, atomically: true, encoding: .utf8)
    cache.store([passing(chapters[0])], gradedFrom: before)
    let after = cache.lookUp(chapters, in: cache.snapshot())
    #expect(after.reused.map(\.chapter.number) == [1])
    #expect(after.stale.map(\.number) == [2])
  }
}
