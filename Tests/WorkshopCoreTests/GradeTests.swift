import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// The submissions of a small class, made from `Tests/Fixtures/ClassWorkshop`:
/// each one a way learners hand in work, or a way it can go wrong.
private struct ClassFixture {
  var course: URL
  var submissions: URL

  static let zipAvailable = MissingTool.has("unzip") && MissingTool.has("zip")

  init() throws {
    course = try freshCopyOfFixture("workshop-class-fixture", of: "ClassWorkshop")
    submissions = course.deletingLastPathComponent().appendingPathComponent("workshop-class-submissions")
    let files = FileManager.default
    try? files.removeItem(at: submissions)
    try files.createDirectory(at: submissions, withIntermediateDirectories: true)

    // A copy of the workshop with the chapters solved.
    try copy("Solutions", to: "solved/Chapters")
    // One as handed out.
    try copy("Chapters", to: "starter/Chapters")
    // The starter, with checks that always pass, a manifest that declares
    // nothing failing and a package that does not even parse.
    try copy("Chapters", to: "tampered/Chapters")
    try write(
      "import Adder\nimport Testing\n@Test(\"Adds two numbers\") func adds() { #expect(Bool(true)) }\n",
      to: "tampered/Tests/01-AdderTests/AdderTests.swift")
    try write(
      #"{"title": "x", "chapters": [{"number": 1, "name": "Adder", "title": "Adder", "summary": "", "files": [], "hints": [], "starterFails": [], "pointsPerCheck": 100}]}"#,
      to: "tampered/curriculum.json")
    try write("this is not Swift", to: "tampered/Package.swift")
    try write("junk", to: "tampered/.build/debug/thing.o")
    // The course's own solutions, as a clone handed in whole holds them, and
    // a file the learner added.
    try copy("Solutions", to: "tampered/Solutions")
    try write("my notes", to: "tampered/notes.txt")
    // A bare Chapters/ folder, solved.
    try copy("Solutions", to: "bare/Chapters")
    // Archives of the solved copy, with a top folder as GitHub's downloads have.
    try copy("Solutions", to: "packed/archived/Chapters")
    // Beside the code, what a learner's copy holds: archives unpack only
    // Swift files, and list the rest as ignored as a folder's is.
    try write("my notes", to: "packed/archived/notes.txt")
    try write("a drawing", to: "packed/archived/Chapters/01-Adder/diagram.png")
    try write("junk", to: "packed/archived/.build/debug/thing.o")
    try copy("Package.swift", to: "packed/archived/Package.swift")
    try run(
      "tar", ["-czf", submissions.appendingPathComponent("archived.tar.gz").path, "archived"], in: "packed")
    if Self.zipAvailable {
      try run(
        "zip", ["-qr", submissions.appendingPathComponent("zipped.zip").path, "archived"], in: "packed")
    }
    try files.removeItem(at: submissions.appendingPathComponent("packed"))
    // Chapter 01 does not compile and chapter 02 is missing.
    try write(
      "public func add(_ a: Int, _ b: Int) -> Int { a + }\n", to: "broken/Chapters/01-Adder/Adder.swift")
    // The starter, reading the environment, with a link to the solution.
    try copy("Chapters", to: "flagged/Chapters")
    try write(
      "import Foundation\n// getenv in a comment is not a finding\n"
        + "public func add(_ a: Int, _ b: Int) -> Int { getenv(\"X\") == nil ? a - b : 0 }\n",
      to: "flagged/Chapters/01-Adder/Adder.swift")
    try files.createSymbolicLink(
      atPath: submissions.appendingPathComponent("flagged/Chapters/02-Greeter/Solved.swift").path,
      withDestinationPath: course.appendingPathComponent("Solutions/02-Greeter/Greeter.swift").path)
    // Not an archive at all.
    try write("not a zip", to: "corrupt.tar.gz")
  }

  /// The submissions in the order they are graded.
  var all: [String] {
    ["solved", "starter", "tampered", "bare/Chapters", "archived.tar.gz"]
      + (Self.zipAvailable ? ["zipped.zip"] : []) + ["broken", "flagged", "corrupt.tar.gz"]
  }

  func copy(_ folder: String, to path: String) throws {
    let target = submissions.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: course.appendingPathComponent(folder), to: target)
  }

  func write(_ text: String, to path: String) throws {
    let url = submissions.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  func run(_ tool: String, _ arguments: [String], in folder: String) throws {
    let quoted = ([tool] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
    let outcome = try Subprocess.run(
      "/bin/sh", ["-c", "cd '\(submissions.appendingPathComponent(folder).path)' && \(quoted)"], timeout: 60)
    guard outcome.succeeded else {
      throw GradingError(description: "\(tool) failed: \(outcome.standardError)")
    }
  }
}

/// The class, graded once with `workshop grade` for every test of the suite.
private let graded = blockingTask("the class, graded") {
  () throws -> (fixture: ClassFixture, status: Int32, out: String, err: String) in
  let fixture = try ClassFixture()
  let reports = fixture.course.appendingPathComponent("grades")
  try? FileManager.default.removeItem(at: reports)
  let (status, out, err) = workshop(
    ["grade"] + fixture.all.map { fixture.submissions.appendingPathComponent($0).path }
      + ["--report-dir", "grades", "--jobs", "2", "--timeout", "20"]
      + (Sandbox.current == nil ? ["--unsandboxed"] : []),
    in: fixture.course)
  return (fixture, status, out, err)
}

private func results(_ name: String) async throws -> ClassReports.Gradescope {
  let (fixture, _, out, err) = try await graded.value
  let data = try #require(
    try? Data(contentsOf: fixture.course.appendingPathComponent("grades/\(name)/results.json")),
    "no results.json for \(name); the run printed:\n\(out)\n\(err)")
  return try JSONDecoder().decode(ClassReports.Gradescope.self, from: data)
}

private func passing(_ results: ClassReports.Gradescope) -> [String] {
  results.tests.filter { $0.status == "passed" }.map(\.name)
}

@Suite("Grading a class (workshop grade)", .serialized, .ownThread)
struct GradeTests {
  @Test("A solved submission scores full marks, with each chapter's points")
  func solved() async throws {
    let solved = try await results("solved")
    #expect(solved.tests.count == 4)
    #expect(solved.tests.allSatisfy { $0.status == "passed" })
    // Chapter 02's checks are worth 2 points each (curriculum.json).
    #expect(solved.score == 6)
    #expect(solved.tests.map(\.max_score) == [1, 1, 2, 2])
    #expect(solved.tests.map(\.number) == ["01.1", "01.2", "02.1", "02.2"])
  }

  @Test("A starter scores exactly what the starters pass, and says what failed")
  func starter() async throws {
    let starter = try await results("starter")
    #expect(passing(starter) == ["01 Adder: Adds zero", "02 Greeter: Starts with Hello"])
    #expect(starter.score == 3)
    let adds = try #require(starter.tests.first { $0.name == "01 Adder: Adds two numbers" })
    #expect(adds.status == "failed" && adds.output.contains("2 + 3 is 5"))
  }

  @Test(
    "A submission's own Tests/, curriculum.json and Package.swift change nothing and are listed as ignored; hidden folders and the course's unchanged files are not"
  )
  func tampered() async throws {
    let tampered = try await results("tampered")
    let starter = try await results("starter")
    #expect(tampered.tests.map(\.status) == starter.tests.map(\.status))
    #expect(tampered.score == starter.score)
    for ignored in ["Tests/ (1 file)", "curriculum.json", "Package.swift", "notes.txt"] {
      #expect(tampered.output.contains("  " + ignored), "\(ignored) is listed as ignored")
    }
    #expect(!tampered.output.contains(".build/"), "a hidden folder is not listed")
    #expect(!tampered.output.contains("Solutions/"), "the course's own files, unchanged, are not listed")
  }

  @Test("A bare Chapters/ folder and archives of a copy are graded like the copy")
  func archivesAndBareFolders() async throws {
    var names = ["bare", "archived"]
    if ClassFixture.zipAvailable { names.append("zipped") }
    for name in names {
      let result = try await results(name)
      #expect(result.score == 6, "\(name) scores full marks")
      #expect(result.tests.count == 4)
    }
  }

  @Test(
    "An archive's files that are not Swift are listed as ignored, as a folder's are; hidden and shipped ones are not"
  )
  func archivesListIgnoredFiles() async throws {
    var names = ["archived"]
    if ClassFixture.zipAvailable { names.append("zipped") }
    for name in names {
      let output = try await results(name).output
      for ignored in ["notes.txt", "Chapters/01-Adder/diagram.png"] {
        #expect(output.contains("\n  " + ignored), "\(name): \(ignored) is not listed as ignored:\n\(output)")
      }
      #expect(!output.contains(".build"), "\(name): a hidden folder is listed")
      #expect(!output.contains("  Package.swift"), "\(name): the course's own file, as shipped, is listed")
    }
  }

  @Test("A chapter that does not compile, or is missing, fails each of its checks with the reason")
  func brokenAndMissing() async throws {
    let broken = try await results("broken")
    #expect(broken.score == 0 && broken.tests.count == 4)
    let adder = broken.tests.filter { $0.name.hasPrefix("01") }
    #expect(
      adder.allSatisfy { $0.output.hasPrefix("Does not compile:") && $0.output.contains("Adder.swift:1") })
    let greeter = broken.tests.filter { $0.name.hasPrefix("02") }
    #expect(
      greeter.allSatisfy { $0.output.hasPrefix("Not handed in: the submission has no Chapters/02-Greeter/") })
    let junit = try String(
      contentsOf: try await graded.value.fixture.course.appendingPathComponent("grades/broken/junit.xml"),
      encoding: .utf8)
    #expect(junit.contains(#"tests="4" failures="0" errors="4""#))
    // The message CI tools show first says where the first error is.
    #expect(
      junit.contains(#"<error message="Does not compile: Chapters/01-Adder/Adder.swift:1:"#), "\(junit)")
  }

  @Test("JUnit gives each check the time it ran, each chapter the sum, and the file the sum of its chapters")
  func junitTimes() async throws {
    let junit = try String(
      contentsOf: try await graded.value.fixture.course.appendingPathComponent("grades/solved/junit.xml"),
      encoding: .utf8)
    let times = junit.matches(of: #/<testcase [^>]*time="([0-9.]+)"/#).map { Double($0.output.1) ?? -1 }
    #expect(times.count == 4)
    #expect(times.allSatisfy { $0 > 0 }, "every check that ran has its time: \(junit)")
    let suites = junit.matches(of: #/<testsuite name="0[12][^"]*"[^>]*time="([0-9.]+)"/#).map {
      Double($0.output.1) ?? -1
    }
    #expect(suites.count == 2 && abs(suites.reduce(0, +) - times.reduce(0, +)) < 0.000_01)
    // The whole file's total adds up its suites too.
    let total = try #require(
      junit.firstMatch(of: #/<testsuites [^>]*time="([0-9.]+)"/#).flatMap { Double($0.output.1) })
    #expect(abs(total - suites.reduce(0, +)) < 0.000_01, "\(junit)")
  }

  @Test("Code that reaches the environment is graded and flagged with file and line; links are not followed")
  func flagged() async throws {
    let flagged = try await results("flagged")
    #expect(flagged.output.contains("Needs review"))
    #expect(
      flagged.output.contains(
        "Chapters/01-Adder/Adder.swift:3: getenv reads or changes the process's arguments or environment"))
    #expect(!flagged.output.contains("not built"))
    // Built and graded as what it is: the starter's subtraction, in the
    // sandbox's environment, where X is not set.
    let starter = try await results("starter")
    #expect(
      passing(flagged).filter { $0.hasPrefix("01 ") } == passing(starter).filter { $0.hasPrefix("01 ") })
    #expect(!passing(flagged).filter { $0.hasPrefix("01 ") }.isEmpty)
    #expect(!flagged.output.contains("Adder.swift:2"), "a comment is not a finding")
    #expect(
      flagged.output.contains("Chapters/02-Greeter/Solved.swift (a link or not a regular file: not followed)")
    )
    // The link to the solution was not taken: chapter 02 is still the starter.
    #expect(passing(flagged).contains("02 Greeter: Starts with Hello"))
    #expect(!passing(flagged).contains("02 Greeter: Greets by name"))
    let out = try await graded.value.out
    #expect(out.contains("needs review (1)"))
  }

  @Test("A submission that cannot be read is not graded, says why, and makes the exit status 1")
  func corrupt() async throws {
    let (_, status, out, _) = try await graded.value
    #expect(status == Workshop.ExitCode.failure)
    let corrupt = try await results("corrupt")
    #expect(corrupt.tests.isEmpty && corrupt.score == 0)
    #expect(corrupt.output.hasPrefix("Not graded: cannot unpack corrupt.tar.gz: "))
    #expect(out.contains("1 submission was not graded: corrupt."))
  }

  @Test(
    "class.html has a row per submission linking to its report, and the broken chapter's cells say it does not compile"
  )
  func classPage() async throws {
    let fixture = try await graded.value.fixture
    let page = try String(
      contentsOf: fixture.course.appendingPathComponent("grades/class.html"), encoding: .utf8)
    for name in ["solved", "starter", "tampered", "bare", "archived", "broken", "flagged", "corrupt"] {
      #expect(page.contains("href=\"\(name)/results.json\""), "\(name) has its row")
    }
    let broken = try #require(
      page.firstMatch(of: #/<tr><th scope="row" class="who"><a href="broken/(?s:.*?)</tr>/#))
    #expect(
      broken.output.contains("<td class=\"notCompiled\">#<span class=\"sr\"> does not compile</span></td>"))
    #expect(broken.output.contains("<td class=\"notHandedIn\">"))
  }

  @Test("class.csv has one row per submission, in order, with each chapter's cell")
  func csv() async throws {
    let fixture = try await graded.value.fixture
    let text = try String(
      contentsOf: fixture.course.appendingPathComponent("grades/class.csv"), encoding: .utf8)
    let rows = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    #expect(
      rows.first
        == [
          "submission", "checks passed", "checks total", "01 Adder", "02 Greeter", "score", "max score",
          "needs review", "not graded",
        ])
    let byName = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { ($0[0], $0) })
    #expect(rows.count == 1 + fixture.all.count)
    #expect(byName["solved"] == ["solved", "4", "4", "2 of 2", "2 of 2", "6", "6", "0", ""])
    #expect(byName["starter"] == ["starter", "2", "4", "1 of 2", "1 of 2", "3", "6", "0", ""])
    #expect(byName["broken"]?[3...4] == ["does not compile", "not handed in"])
    #expect(byName["flagged"]?[7] == "1")
    #expect(byName["corrupt"]?[1...4] == ["", "", "not graded", "not graded"])
    #expect(byName["corrupt"]?[8].hasPrefix("cannot unpack corrupt.tar.gz") == true)
  }

  @Test(
    "Every junit.xml is valid against the JUnit schema",
    .enabled(if: MissingTool.has("xmllint"), MissingTool.reason("xmllint", debianPackage: "libxml2-utils")))
  func junitSchema() async throws {
    let fixture = try await graded.value.fixture
    let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures/JUnit.xsd")
    let names = ["solved", "starter", "broken", "flagged", "corrupt"]
    let files = names.map { fixture.course.appendingPathComponent("grades/\($0)/junit.xml").path }
    let outcome = try Subprocess.run("xmllint", ["--noout", "--schema", schema.path] + files, timeout: 60)
    #expect(outcome.succeeded, "\(outcome.standardError)")
  }

  @Test("The terminal shows a line per submission and the class table")
  func terminal() async throws {
    let (fixture, _, out, _) = try await graded.value
    for name in ["solved", "starter", "tampered", "bare", "archived", "broken", "flagged", "corrupt"] {
      #expect(out.contains("  ✓ \(name) ") || out.contains("  ✗ \(name) "), "a line for \(name)")
    }
    #expect(out.contains("Class: \(fixture.all.count) submissions"))
    #expect(out.contains("summary.md"))
  }

  @Test("Grading again, with nothing changed, gives the same reports and exit 0 when all are graded")
  func again() async throws {
    let fixture = try await graded.value.fixture
    let first = try await results("starter")
    let (status, _, err) = workshop(
      ["grade", fixture.submissions.appendingPathComponent("starter").path, "--report-dir", "grades"]
        + (Sandbox.current == nil ? ["--unsandboxed"] : []),
      in: fixture.course)
    #expect(status == Workshop.ExitCode.success, "\(err)")
    let second = try await results("starter")
    #expect(second.tests == first.tests)
  }

  @Test(
    "A submission with a check that could not decide is reported after the class, its chapter graded again with more time"
  )
  func undecidedAfterTheClass() async throws {
    // A course of its own, with a check that, for a right `add`, cannot
    // decide under the kit's bound of a chapter's grading (1 s, then 4 s):
    // it records the kit's "could not decide" verdict, as a check whose
    // threads never met does. After the class the bound is 8 s, and it
    // decides. A wrong `add` fails it at once.
    let root = try freshCopyOfFixture("workshop-class-undecided", of: "ClassWorkshop")
    let checks = root.appendingPathComponent("Tests/01-AdderTests/AdderTests.swift")
    try
      (try String(contentsOf: checks, encoding: .utf8)
        + #"""

        import Foundation

        @Test("Adds on a busy machine") func busy() {
          let bound = Double(ProcessInfo.processInfo.environment["WORKSHOP_HANG_BOUND"] ?? "") ?? 1
          #expect(add(1, 1) == 2)
          if add(1, 1) == 2, bound < 5 {
            let verdict = #"{"behaviour":"The threads must meet","events":[],"format":"workshop-verdict-1","runtimeSaid":[],"undecided":true}"#
            Attachment.record(Array(verdict.utf8), named: "verdict.json")
            Issue.record("The threads must meet\nRecorded events: (none)")
          }
        }

        """#).write(to: checks, atomically: true, encoding: .utf8)
    let submissions = root.appendingPathComponent("submissions")
    for (name, folder) in [("solved", "Solutions"), ("starter", "Chapters")] {
      try FileManager.default.createDirectory(
        at: submissions.appendingPathComponent(name), withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: root.appendingPathComponent(folder),
        to: submissions.appendingPathComponent("\(name)/Chapters"))
    }
    let course = try Workspace.locate(from: root)
    var grader = ClassGrader(course: course, jobs: 1, timeLimit: 20, sandbox: Sandbox.current)
    let said = Mutex<[String]>([])
    grader.progress = { line in said.withLock { $0.append(line) } }
    let reported = Mutex<[String]>([])
    let names = ["solved", "starter"]
    let (grades, _) = try grader.grade(
      names.map { submissions.appendingPathComponent($0).path }, names: names
    ) { grade, _ in reported.withLock { $0.append(grade.name) } }
    // The starter is reported first: "solved" waited for the end of the class.
    #expect(reported.withLock { $0 } == ["starter", "solved"])
    #expect(
      said.withLock { $0 }.contains { $0.contains("chapters of 1 submission whose checks could not decide") })
    let solved = try #require(grades.first { $0.name == "solved" })
    #expect(solved.reports.map(\.chapter.number) == [1, 2])
    #expect(
      solved.reports[0].checks.map(\.status) == [.passed, .passed, .passed], "\(solved.reports[0].checks)")
  }

  @Test(
    "No result crosses submissions: only a starter, byte for byte, gets the starter's result; the same other code handed in twice is graded in each"
  )
  func sharing() async throws {
    let fixture = try await graded.value.fixture
    // The same solved chapter 01, byte for byte, in two submissions.
    for name in ["same-a", "same-b"] {
      try fixture.copy("Chapters", to: "\(name)/Chapters")
      let solved = try String(
        contentsOf: fixture.course.appendingPathComponent("Solutions/01-Adder/Adder.swift"), encoding: .utf8)
      try fixture.write(solved, to: "\(name)/Chapters/01-Adder/Adder.swift")
    }
    let course = try Workspace.locate(from: fixture.course)
    let grader = ClassGrader(course: course, jobs: 1, timeLimit: 20, sandbox: Sandbox.current)
    let names = ["flagged", "starter", "tampered", "same-a", "same-b"]
    let (grades, _) = try grader.grade(
      names.map { fixture.submissions.appendingPathComponent($0).path }, names: names
    ) { _, _ in }
    // Sandboxed, each chapter that is its starter (the flagged one's chapter
    // 02 among them) gets the starter's result; nothing else is shared, not
    // even the solved chapter 01 handed in twice. Unsandboxed, nothing is.
    #expect(grades.map(\.reused) == (Sandbox.current == nil ? [0, 0, 0, 0, 0] : [1, 2, 2, 1, 1]))
    for grade in grades.suffix(2) {
      #expect(
        grade.reports.first?.state == .done, "\(grade.name): \(grade.reports.first.map { "\($0)" } ?? "")")
    }
    // The starter's result is the one a starter gets when graded in a submission.
    let starter = try #require(grades.first { $0.name == "starter" })
    #expect(starter.reports.map { $0.checks.filter { $0.status == .passed }.count } == [1, 1])
  }

  @Test(
    "After an unsandboxed grade, a sandboxed one takes nothing it kept: the starters' results, builds and checks start again"
  )
  func unsandboxedStateDistrusted() throws {
    let course = try Workspace.locate(
      from: freshCopyOfFixture("workshop-class-unsandboxed-mark", of: "ClassWorkshop"))
    let kept = course.url(".build/workshop-grade")
    try? FileManager.default.removeItem(at: kept)
    let sandboxed = ClassGrader(
      course: course, jobs: 1, timeLimit: 20, sandbox: Sandbox(bubblewrap: "/nonexistent/bwrap"))
    // What a sandboxed grade kept stays while nothing ran unsandboxed.
    try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
    try Data("kept".utf8).write(to: sandboxed.startersResultsFile)
    try sandboxed.distrustStateOfUnsandboxedRuns()
    #expect(FileManager.default.fileExists(atPath: sandboxed.startersResultsFile.path))
    // An unsandboxed grade marks the folder; its learners' code could have
    // written a forged result there.
    let unsandboxed = ClassGrader(course: course, jobs: 1, timeLimit: 20, sandbox: nil)
    try unsandboxed.distrustStateOfUnsandboxedRuns()
    try Data("forged".utf8).write(to: sandboxed.startersResultsFile)
    try sandboxed.distrustStateOfUnsandboxedRuns()
    #expect(!FileManager.default.fileExists(atPath: sandboxed.startersResultsFile.path))
    #expect(!FileManager.default.fileExists(atPath: sandboxed.unsandboxedMark.path))
  }

  @Test(
    "A chapter whose checks the learner writes is never in the build the other chapters are graded in: its starter is"
  )
  func checksChapterApart() throws {
    func chapter(_ number: Int, component: String? = nil) -> Curriculum.Chapter {
      Curriculum.Chapter(
        number: number, name: "C\(number)", title: "T", summary: "", files: [], hints: [], starterFails: [],
        component: component)
    }
    let plain = [chapter(1), chapter(4)]
    let checks = chapter(13, component: "SignupForm")
    let passes = ClassGrader.passes(plain + [checks])
    #expect(
      passes == [
        ClassGrader.Pass(graded: plain, startersInBuild: [checks]),
        ClassGrader.Pass(graded: [checks], startersInBuild: []),
      ])
    #expect(ClassGrader.passes(plain) == [ClassGrader.Pass(graded: plain, startersInBuild: [])])
    #expect(ClassGrader.passes([checks]) == [ClassGrader.Pass(graded: [checks], startersInBuild: [])])
  }

  @Test(
    "A chapter's grade is the same whatever the submission's other chapters hold, and the same as check gives"
  )
  func sameGradeWhateverElse() async throws {
    let fixture = try await graded.value.fixture
    let solved = try String(
      contentsOf: fixture.course.appendingPathComponent("Solutions/01-Adder/Adder.swift"), encoding: .utf8)
    // The same chapter 01 beside a starter, a solved, a broken and a slow chapter 02.
    let others = [
      "starter": nil,
      "solved": try String(
        contentsOf: fixture.course.appendingPathComponent("Solutions/02-Greeter/Greeter.swift"),
        encoding: .utf8),
      "broken": "public func greet(_ name: String) -> String { \"Hello, \" + }\n",
      "reaching":
        "import Foundation\npublic func greet(_ name: String) -> String { ProcessInfo.processInfo.environment[\"X\"] ?? \"Hello, \\(name)\" }\n",
    ]
    let names = others.keys.sorted().map { "beside-\($0)" }
    for (other, text) in others {
      try fixture.copy("Chapters", to: "beside-\(other)/Chapters")
      try fixture.write(solved, to: "beside-\(other)/Chapters/01-Adder/Adder.swift")
      if let text { try fixture.write(text, to: "beside-\(other)/Chapters/02-Greeter/Greeter.swift") }
    }
    let course = try Workspace.locate(from: fixture.course)
    let grader = ClassGrader(course: course, jobs: 1, timeLimit: 20, sandbox: Sandbox.current)
    let (grades, _) = try grader.grade(
      names.map { fixture.submissions.appendingPathComponent($0).path }, names: names
    ) { _, _ in }
    let verdicts = grades.map { grade in
      grade.reports.first.map { report in report.checks.map { "\($0.id): \($0.status)" } } ?? []
    }
    #expect(Set(verdicts).count == 1, "\(verdicts)")
    #expect(grades.allSatisfy { $0.reports.first?.state == .done })
    // `check`'s grader, on the same text in a checkout of the course.
    let checkout = try freshCopyOfFixture("workshop-class-same-grade", of: "ClassWorkshop")
    try solved.write(
      to: checkout.appendingPathComponent("Chapters/01-Adder/Adder.swift"), atomically: true, encoding: .utf8)
    let learner = try Workspace.locate(from: checkout)
    let own = Grader(
      workspace: learner, variant: .chapters, timeLimit: 20,
      isolation: Sandbox.current.map { .sandbox($0) } ?? .none)
    let report = try #require(try own.grade([learner.curriculum.chapters[0]]).first)
    #expect(report.checks.map { "\($0.id): \($0.status)" } == verdicts.first)
  }

  @Test(
    "A chapter the compiler cannot finish within the build's limits is reported so, once; the others are graded",
    .enabled(if: Sandbox.current != nil, "needs the sandbox (bubblewrap), where builds have limits"))
  func compileLimit() async throws {
    let fixture = try await graded.value.fixture
    // A kilobyte of nested tuple types: the type checker works on it for hours.
    var code = "typealias T0 = (Int, Int)\n"
    for level in 1..<40 { code += "typealias T\(level) = (T\(level - 1), T\(level - 1))\n" }
    code += "func f() -> T39? { nil }\npublic func add(_ a: Int, _ b: Int) -> Int { a + b }\n"
    try fixture.copy("Chapters", to: "slow-compile/Chapters")
    try fixture.write(code, to: "slow-compile/Chapters/01-Adder/Adder.swift")
    let course = try Workspace.locate(from: fixture.course)
    var sandbox = try #require(Sandbox.current)
    sandbox.buildLimits.cpuSeconds = 5
    let grader = ClassGrader(course: course, jobs: 1, timeLimit: 20, sandbox: sandbox)
    let start = ContinuousClock.now
    let (grades, _) = try grader.grade(
      [fixture.submissions.appendingPathComponent("slow-compile").path], names: ["slow-compile"]
    ) { _, _ in }
    let grade = try #require(grades.first)
    #expect(grade.notGraded == nil, "\(grade.notGraded ?? "")")
    let adder = try #require(grade.reports.first)
    #expect(
      adder.compileErrors.contains {
        $0.contains("did not compile within 5 s of CPU time and 6 GiB of memory")
      },
      "\(adder.compileErrors)")
    #expect(adder.checks.allSatisfy { $0.status != .passed })
    // Chapter 02, the starter, still graded: one check of two.
    #expect(grade.reports.last?.checks.filter { $0.status == .passed }.count == 1)
    // Stopped once, not searched for with a build per chapter.
    #expect(ContinuousClock.now - start < .seconds(90))
  }

  @Test(
    "A submission that takes longer than its time budget is stopped there and says so; the next one is graded",
    .enabled(if: Sandbox.current != nil, "needs the sandbox (bubblewrap), which enforces the budget"))
  func submissionBudget() async throws {
    let fixture = try await graded.value.fixture
    // A chapter 01 that spins in its checks, and a submission after it.
    try fixture.copy("Chapters", to: "spins/Chapters")
    try fixture.write(
      "public func add(_ a: Int, _ b: Int) -> Int { while a >= 0 {}; return a + b }\n",
      to: "spins/Chapters/01-Adder/Adder.swift")
    try fixture.copy("Chapters", to: "after/Chapters")
    try fixture.write(
      "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n", to: "after/Chapters/01-Adder/Adder.swift")
    let course = try Workspace.locate(from: fixture.course)
    var grader = ClassGrader(course: course, jobs: 1, timeLimit: 60, sandbox: Sandbox.current)
    // Enough to build it (the build folders are warm), not to wait for the
    // chapter's own limit of 60 s.
    grader.budget = 25
    let names = ["spins", "after"]
    let start = ContinuousClock.now
    let (grades, _) = try grader.grade(
      names.map { fixture.submissions.appendingPathComponent($0).path }, names: names
    ) { _, _ in }
    #expect(ContinuousClock.now - start < .seconds(90))
    let spins = try #require(grades.first)
    let said = (spins.notGraded.map { [$0] } ?? []) + spins.flags.map(\.reason)
    #expect(said.contains { $0.contains("time budget (25 s)") }, "\(said)")
    #expect(spins.reports.first?.checks.allSatisfy { $0.status != .passed } ?? true)
    let after = try #require(grades.last)
    #expect(after.notGraded == nil)
    #expect(after.reports.first?.checks.filter { $0.status == .passed }.count == 2)
  }

  /// One submission per way of reaching outside the exercise that a learner
  /// found: each chapter 01, written against the starter's `add`.
  static let attacks: [(name: String, code: String, line: Int, reason: String)] = [
    (
      "linker-options",
      "@section(\".swift1_autolink_entries\") @used\nlet options: (UInt8, UInt8, UInt8) = (0x2D, 0x42, 0x00)\n"
        + "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n", 1, "@section"
    ),
    (
      "constructor",
      "@_section(\".init_array\") @_used\nlet start: @convention(c) () -> Void = { }\n"
        + "public func add(_ a: Int, _ b: Int) -> Int { a - b }\n", 1, "@_section"
    ),
    (
      "replaced-fwrite",
      "@c public func fwrite(_ p: UnsafeRawPointer?, _ s: Int, _ n: Int, _ f: OpaquePointer?) -> Int { n }\n"
        + "public func add(_ a: Int, _ b: Int) -> Int { a - b }\n", 1, "@c"
    ),
    (
      "forged-stream",
      "import Foundation\npublic func add(_ a: Int, _ b: Int) -> Int {\n"
        + "  let handle = FileHandle(forWritingAtPath: CommandLine.arguments[4])\n"
        + "  handle?.write(Data(\"{}\".utf8)); Foundation.exit(0)\n}\n", 3, "FileHandle"
    ),
    (
      "testing-import",
      "public import Testing\npublic func add(_ a: Int, _ b: Int) -> Int { a - b }\n", 1, "imports Testing"
    ),
    (
      "hidden-attribute",
      "let s = #\"\\\"#; @_cdecl(\"swift_task_enqueueGlobal\") func hook() {}\n"
        + "public func add(_ a: Int, _ b: Int) -> Int { a - b }\n", 1, "@_cdecl"
    ),
    (
      "reads-secret",
      "import Foundation\npublic func add(_ a: Int, _ b: Int) -> Int {\n"
        + "  print(String(cString: getenv(\"WORKSHOP_TEST_SECRET\")!)); return a + b\n}\n", 3, "getenv"
    ),
  ]

  @Test(
    "Each attack scores nothing, is refused or graded by the walls, is listed for review at its line, leaks nothing, and changes nothing for the next submission, graded in the same copy"
  )
  func attacksThenVictim() async throws {
    let fixture = try await graded.value.fixture
    for attack in Self.attacks {
      try fixture.copy("Chapters", to: "\(attack.name)/Chapters")
      try fixture.write(attack.code, to: "\(attack.name)/Chapters/01-Adder/Adder.swift")
    }
    // The starters, each with a blank line added.
    try fixture.copy("Chapters", to: "victim/Chapters")
    for path in ["01-Adder/Adder.swift", "02-Greeter/Greeter.swift"] {
      let url = fixture.submissions.appendingPathComponent("victim/Chapters/" + path)
      try (String(contentsOf: url, encoding: .utf8) + "\n").write(to: url, atomically: true, encoding: .utf8)
    }
    setenv("WORKSHOP_TEST_SECRET", "s3cr3t-token", 1)
    defer { unsetenv("WORKSHOP_TEST_SECRET") }
    let course = try Workspace.locate(from: fixture.course)
    let grader = ClassGrader(course: course, jobs: 1, timeLimit: 20, sandbox: Sandbox.current)
    let names = Self.attacks.map(\.name) + ["victim"]
    let paths = names.map { fixture.submissions.appendingPathComponent($0).path }
    let (grades, _) = try grader.grade(paths, names: names) { _, _ in }
    // Ordinary calls are built and graded: the walls hold them.
    let graded: Set<String> = ["forged-stream", "reads-secret"]
    for (attack, grade) in zip(Self.attacks, grades) {
      let adder = try #require(grade.reports.first, "\(attack.name)")
      #expect(adder.checks.allSatisfy { $0.status != .passed }, "\(attack.name)")
      if graded.contains(attack.name) {
        #expect(adder.compileErrors.isEmpty, "\(attack.name): \(adder.compileErrors)")
        #expect(!adder.checks.isEmpty, "\(attack.name)")
      } else {
        #expect(
          adder.compileErrors.contains { $0.hasSuffix(Builder.refusal) && $0.contains(attack.reason) },
          "\(attack.name): \(adder.compileErrors)")
      }
      #expect(
        grade.flags.contains {
          $0.location == "Chapters/01-Adder/Adder.swift:\(attack.line)" && $0.reason.contains(attack.reason)
        }, "\(attack.name): \(grade.flags)")
      // Chapter 02, the starter, graded as the starter.
      #expect(grade.reports.last?.checks.filter { $0.status == .passed }.count == 1, "\(attack.name)")
    }
    // The victim gets the starter's grade: one check of two in each chapter.
    let victim = try #require(grades.last)
    #expect(victim.reports.map { $0.checks.filter { $0.status == .passed }.count } == [1, 1])
    for grade in grades {
      #expect(!"\(grade)".contains("s3cr3t-token"))
    }
  }

  @Test(
    "An archive that lists more Swift than any workshop holds is not unpacked",
    .enabled(if: ClassFixture.zipAvailable, MissingTool.reason("zip and unzip", debianPackage: "zip unzip")))
  func archiveTooLarge() async throws {
    let fixture = try await graded.value.fixture
    let folder = fixture.submissions.appendingPathComponent("huge")
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("Chapters/01-Adder"), withIntermediateDirectories: true)
    try Data(count: 40 << 20).write(to: folder.appendingPathComponent("Chapters/01-Adder/Adder.swift"))
    try fixture.run("zip", ["-qr", "huge.zip", "huge"], in: ".")
    let course = try Workspace.locate(from: fixture.course)
    #expect {
      try Submission.load(
        fixture.submissions.appendingPathComponent("huge.zip").path, course: course, sandbox: Sandbox.current)
    } throws: { error in
      "\(error)".contains("holds 1 Swift file, 40 MB: more than any workshop")
    }
  }

  @Test(
    "An archive whose listing understates its size is stopped by the bytes it really writes",
    .enabled(if: ClassFixture.zipAvailable, MissingTool.reason("zip and unzip", debianPackage: "zip unzip")))
  func archiveThatLies() async throws {
    let fixture = try await graded.value.fixture
    let folder = fixture.submissions.appendingPathComponent("lies")
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("Chapters/01-Adder"), withIntermediateDirectories: true)
    // Two files, each under the cap, together over it.
    for name in ["Adder.swift", "More.swift"] {
      try Data(count: 20 << 20).write(to: folder.appendingPathComponent("Chapters/01-Adder/\(name)"))
    }
    try fixture.run("zip", ["-qr", "lies.zip", "lies"], in: ".")
    // The local header's and the central directory's sizes both say 30 bytes.
    let archive = fixture.submissions.appendingPathComponent("lies.zip")
    var bytes = [UInt8](try Data(contentsOf: archive))
    func patch(signature: [UInt8], sizeOffset: Int) {
      for index in 0..<(bytes.count - 4) where Array(bytes[index..<index + 4]) == signature {
        bytes.replaceSubrange(index + sizeOffset..<index + sizeOffset + 4, with: [30, 0, 0, 0])
      }
    }
    patch(signature: [0x50, 0x4B, 0x03, 0x04], sizeOffset: 22)
    patch(signature: [0x50, 0x4B, 0x01, 0x02], sizeOffset: 24)
    try Data(bytes).write(to: archive)
    let course = try Workspace.locate(from: fixture.course)
    #expect {
      try Submission.load(archive.path, course: course, sandbox: Sandbox.current)
    } throws: { error in
      "\(error)".contains("unpacks to more than 32 MB, whatever its listing says")
    }
  }

  @Test("Names are unique, whatever their case, and never a class report's")
  func names() {
    #expect(
      Workshop.uniqueNames(["alice", "Alice", "bob", "class.csv", "alice"])
        == ["alice", "Alice-2", "bob", "class.csv-2", "alice-3"])
  }

  @Test("Usage errors exit 64 before anything is graded")
  func usage() async throws {
    let fixture = try await graded.value.fixture
    for arguments in [
      ["grade"], ["grade", "no-such-folder"], ["grade", "solved", "--jobs", "0"],
      ["grade", "curriculum.json"],
    ] {
      let (status, _, err) = workshop(arguments, in: fixture.course)
      #expect(status == Workshop.ExitCode.usage, "\(arguments): \(err)")
      #expect(err.contains("error: "))
    }
  }
}

@Suite("Review flags")
struct ReviewScanTests {
  @Test("The course's own starters and solutions raise no flag")
  func courseIsClean() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    var sources: [String: String] = [:]
    for folder in ["Chapters", "Solutions"] {
      let url = root.appendingPathComponent(folder)
      for path in Files.under(url, suffix: ".swift") {
        sources[folder + "/" + path] = try String(
          contentsOf: url.appendingPathComponent(path), encoding: .utf8)
      }
    }
    #expect(sources.count > 20)
    #expect(ReviewScan.scan(sources) == [])
  }

  @Test(
    "Each way of reaching outside the exercise is flagged",
    arguments: [
      ("let args = CommandLine.arguments", "reads the command line"),
      ("let home = ProcessInfo.processInfo.environment[\"HOME\"]", "reads or changes the environment"),
      ("setenv(\"X\", \"1\", 1)", "reads or changes the environment"),
      ("atexit { }", "ends the process or hooks its exit"),
      ("exit(0)", "ends the process or hooks its exit"),
      ("kill(getppid(), SIGSTOP)", "sends or handles signals"),
      ("signal(SIGTERM, SIG_IGN)", "sends or handles signals"),
      ("let p = Process()", "starts a process"),
      ("posix_spawn(&pid, path, nil, nil, argv, nil)", "starts a process"),
      ("try \"x\".write(to: url, atomically: true, encoding: .utf8)", "reads or writes files"),
      ("FileManager.default.removeItem(atPath: p)", "reads or writes files"),
      ("let t = try String(contentsOfFile: p)", "reads files"),
      ("let here = #filePath", "uses its own source file's path"),
      ("let h = dlopen(nil, RTLD_NOW)", "loads code or looks up symbols at run time"),
      ("func f() { open(\"x\", 0) }", "reads or writes files"),
      ("@_silgen_name(\"swift_task_create\") func f()", "defines or replaces symbols by name"),
      ("@_cdecl(\"main\") func m() {}", "defines or replaces symbols by name"),
      (
        "let f = unsafeBitCast(p, to: (@convention(c) () -> Void).self)",
        "casts unsafely (function pointers or types)"
      ),
      ("let s = \"\\(getenv(\"X\"))\"", "reads or changes the environment"),
      ("let r = realpath(\"/dev/fd/3\", nil)", "reads or writes files"),
      ("ftw(\"/dev/fd\", visit, 4)", "reads or writes files"),
      ("closefrom(3)", "uses file descriptors"),
      ("dup2(empty, 4)", "uses file descriptors"),
      ("close(descriptor)", "uses file descriptors"),
      ("let p = UnsafeMutableRawPointer(bitPattern: 0x1000)", "reaches raw memory (unsafe pointers)"),
      ("key.withUnsafeBytes { print($0) }", "reaches raw memory (unsafe pointers)"),
    ])
  func flagged(code: String, reason: String) {
    let flags = ReviewScan.scan(["Chapters/01-X/A.swift": "// a line\n" + code])
    #expect(flags.contains { $0.reason == reason && $0.location == "Chapters/01-X/A.swift:2" }, "\(flags)")
  }

  @Test("Files with Windows line ends are scanned line by line")
  func windowsLineEnds() {
    let flags = ReviewScan.scan(["A.swift": "// one\r\nlet x = 1 // two\r\nexit(0)\r\n"])
    #expect(flags.map(\.location) == ["A.swift:3"])
  }

  @Test(
    "Words in comments and strings, and methods that share a C function's name, are not flags",
    arguments: [
      "// CommandLine.arguments and exit(0) in a comment",
      "func open(_ photo: Photo) async { isOpen = true }",
      "public func kill() {}",
      "/* Process() */ let x = 1",
      "let message = \"call exit(1) and kill(pid)\"",
      "waiters.remove(at: 0); queue.signal(); task.cancel()",
      "let text = \"\"\"\n  FileManager.default\n  \"\"\"",
      "deinit { close() }",
      "await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in c.resume() }",
      "let task = withUnsafeCurrentTask { $0 != nil }",
    ])
  func notFlagged(code: String) {
    #expect(ReviewScan.scan(["A.swift": code]) == [])
  }
}

@Suite("Grading a class: code that writes the course's files", .serialized, .ownThread)
struct GradeTamperTests {
  /// Chapter 01, solved, but writing a check of its own into the grading
  /// copy of the course and into the pristine checkout it came from.
  static let tampering = """
    import Foundation

    public func add(_ a: Int, _ b: Int) -> Int {
      // <copy>/Chapters/01-Adder/Adder.swift; the copy is <course>/.build/workshop-grade/<n>.
      let copy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
      let course = copy.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      for root in [copy, course] {
        try? "// written by learner code\\n".write(
          to: root.appendingPathComponent("Tests/01-AdderTests/Written.swift"), atomically: true, encoding: .utf8)
      }
      return a + b
    }

    """

  func setUp() throws -> (course: URL, submissions: [String]) {
    let course = try freshCopyOfFixture("workshop-class-fixture-tamper", of: "ClassWorkshop")
    // Chapter 01's code attacks the grader on purpose, with names the rules
    // refuse: these tests are of the defenses behind the rules.
    let manifest = course.appendingPathComponent(Curriculum.fileName)
    var curriculum = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
    var chapters = try #require(curriculum["chapters"] as? [[String: Any]])
    chapters[0]["attacksTheGrader"] = true
    curriculum["chapters"] = chapters
    try JSONSerialization.data(withJSONObject: curriculum, options: [.prettyPrinted, .sortedKeys]).write(
      to: manifest)
    let submissions = course.appendingPathComponent("submissions")
    for name in ["tamperer", "next"] {
      try FileManager.default.createDirectory(
        at: submissions.appendingPathComponent(name), withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: course.appendingPathComponent("Solutions"),
        to: submissions.appendingPathComponent("\(name)/Chapters"))
    }
    try Self.tampering.write(
      to: submissions.appendingPathComponent("tamperer/Chapters/01-Adder/Adder.swift"), atomically: true,
      encoding: .utf8)
    return (course, ["submissions/tamperer", "submissions/next"])
  }

  @Test(
    "In the sandbox the writes fail, the grade stands, and the checkout is untouched",
    .enabled(if: Sandbox.current != nil, MissingTool.sandbox))
  func sandboxed() throws {
    let (course, submissions) = try setUp()
    let (status, out, err) = workshop(["grade"] + submissions + ["--jobs", "1"], in: course)
    #expect(status == Workshop.ExitCode.success, "\(out)\n\(err)")
    #expect(out.contains("✓ tamperer    4/4"), "\(out)")
    #expect(
      !FileManager.default.fileExists(
        atPath: course.appendingPathComponent("Tests/01-AdderTests/Written.swift").path))
  }

  @Test("Unsandboxed, that submission and every one after it is not graded, and says why")
  func unsandboxed() throws {
    let (course, submissions) = try setUp()
    let (status, out, err) = workshop(["grade"] + submissions + ["--jobs", "1", "--unsandboxed"], in: course)
    #expect(status == Workshop.ExitCode.failure)
    #expect(err.contains("grading unsandboxed"))
    #expect(
      out.contains("✗ tamperer    not graded: the course's own files changed while the checks ran"), "\(out)")
    #expect(
      out.contains(
        "✗ next        not graded: the course's own files changed while the class was graded (Tests/01-AdderTests/Written.swift)"
      ), "\(out)")
  }
}

@Suite("A grading copy of the course")
struct GradingCopyTests {
  @Test("A test entry point file the course does not have is removed from the copy; the course's are copied")
  func strayEntryPoints() throws {
    let course = try Workspace.locate(
      from: try freshCopyOfFixture("workshop-grading-copy", of: "ClassWorkshop"))
    let grading = try GradingCopy(of: course, at: try TemporaryFolder.shared.makeFolder("grading-copy"))
    let copy = grading.copy
    // An older course left entry points where SwiftPM looks for one.
    for path in ["Tests/LinuxMain.swift", "LinuxMain.swift"] {
      try "@main struct Old {}\n".write(to: copy.url(path), atomically: true, encoding: .utf8)
    }
    try grading.syncCourse()
    let files = FileManager.default
    #expect(!files.fileExists(atPath: copy.url("Tests/LinuxMain.swift").path))
    #expect(!files.fileExists(atPath: copy.url("LinuxMain.swift").path))
    #expect(files.fileExists(atPath: copy.url(Workspace.testEntryPointFolder + "/XCTMain.swift").path))
    #expect(files.fileExists(atPath: copy.url("Package.swift").path))

    // One the course has is the copy's too.
    try "// the course's\n".write(to: course.url("Tests/Extra.swift"), atomically: true, encoding: .utf8)
    try grading.syncCourse()
    #expect(try String(contentsOf: copy.url("Tests/Extra.swift"), encoding: .utf8) == "// the course's\n")
  }
}
