import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// One state of a learner's copy of the class fixture: chapter 01 solved,
/// chapter 02 as shipped (its starter fails one check of two).
private func oneState() throws -> Workspace {
  let root = try freshCopyOfFixture("workshop-one-number", of: "ClassWorkshop")
  try? FileManager.default.removeItem(at: root.appendingPathComponent(".workshop"))
  try Starters(workspace: try Workspace.locate(from: root)).record()
  try "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n".write(
    to: root.appendingPathComponent("Chapters/01-Adder/Adder.swift"), atomically: true, encoding: .utf8)
  return try Workspace.locate(from: root)
}

/// The first screen `watch 02` prints, and the one after it has graded the
/// other chapters: the text up to each "Watching Chapters/" line.
private func watchScreens(in workspace: Workspace) async throws -> [String] {
  let out = Mutex("")
  let (printed, printing) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
  let stop = Atomic(false)
  var command = Workshop(
    console: Workshop.Console(
      out: { line in
        out.withLock { $0 += line + "\n" }
        printing.yield()
      }, err: { _ in }),
    style: Style(colored: false), directory: workspace.root, subcommands: LearnerCommands.table)
  command.stopWatching = { stop.load(ordering: .acquiring) }
  let running = command
  Thread.detachNewThread { _ = running.run(["watch", "02"]) }
  defer { stop.store(true, ordering: .releasing) }
  let screens = { @Sendable () -> [String] in
    let parts = out.withLock { $0 }.components(separatedBy: "Watching Chapters/ for saves")
    return parts.count > 2 ? Array(parts.prefix(2)) : []
  }
  return try await withThrowingTaskGroup(of: [String].self) { group in
    group.addTask {
      if !screens().isEmpty { return screens() }
      for await _ in printed where !screens().isEmpty { return screens() }
      return []
    }
    group.addTask {
      try await Task.sleep(for: .seconds(300))  // Real time, only as the hang bound.
      return []
    }
    let first = try await group.next() ?? []
    group.cancelAll()
    return first
  }
}

@Suite("One state, one number in every view", .serialized, .ownThread)
struct OneNumberTests {
  @Test(
    "The table, check, watch, grade's reports and the class page count one state's passing checks and the starters' the same"
  )
  func fiveViews() async throws {
    let workspace = try oneState()
    // Per chapter: passing checks of all; then the whole copy's, and what the untouched starters pass.
    let expected = (adder: "2 of 2", greeter: "1 of 2", all: (passed: 3, total: 4), starters: 2)

    // 1. The progress table.
    let table = workshop([], in: workspace.root).out
    let rows = table.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let adderRow = try #require(rows.first { $0.hasPrefix("01  Adder") }, "\(table)")
    let greeterRow = try #require(rows.first { $0.hasPrefix("02  Greeter") }, "\(table)")
    #expect(adderRow.contains("2/2") && greeterRow.contains("1/2"), "\(table)")
    #expect(
      table.contains(
        "\(expected.all.passed) of \(expected.all.total) checks pass (the untouched starters pass \(expected.starters))"
      ), "\(table)")

    // 2. check, chapter by chapter.
    let adder = workshop(["check", "01"], in: workspace.root).out
    #expect(adder.contains("\(expected.adder) checks pass."), "\(adder)")
    let greeter = workshop(["check", "02"], in: workspace.root).out
    #expect(greeter.contains("\(expected.greeter) checks pass."), "\(greeter)")
    #expect(greeter.contains("The untouched starter passes 1."), "\(greeter)")

    // 3. watch: its chapter first, then the others and the whole.
    let screens = try await watchScreens(in: workspace)
    try #require(screens.count == 2, "watch printed no second screen")
    #expect(screens[0].contains("\(expected.greeter) checks pass."), "\(screens[0])")
    #expect(
      screens[1].contains(
        "Other chapters: 1 of 1 done · \(expected.all.passed) of \(expected.all.total) checks pass in all"),
      "\(screens[1])")

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
    #expect(passing("01 ") == expected.adder && passing("02 ") == expected.greeter, "\(results.tests)")
    let csv = try String(contentsOf: reports.appendingPathComponent("class.csv"), encoding: .utf8)
    let row = try #require(
      csv.split(whereSeparator: \.isNewline).first { $0.hasPrefix(name + ",") }, "\(csv)")
    #expect(
      row.hasPrefix(
        "\(name),\(expected.all.passed),\(expected.all.total),\(expected.adder),\(expected.greeter),"),
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
