import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

@Suite("Wrong and right fixes")
struct MutationTests {
  private let solution = ["A.swift": "let a = 1\nlet b = 2\n", "B.swift": "struct B {}\n"]

  @Test("A mutation's note, kind and find-and-replace blocks are read and applied")
  func applies() throws {
    let mutation = try Mutation.parse(
      """
      # b starts at three
      kind: wrong
      --- A.swift
      <<<<<<< find
      let b = 2
      =======
      let b = 3
      >>>>>>> replace
      --- C.swift
      struct C {}

      """, name: "three")
    #expect(mutation.note == "b starts at three")
    #expect(mutation.kind == .wrong)
    let files = try mutation.apply(to: solution)
    #expect(files["A.swift"] == "let a = 1\nlet b = 3\n")
    #expect(files["B.swift"] == "struct B {}\n")
    #expect(files["C.swift"] == "struct C {}\n")
  }

  @Test("A find text that is not in the solution exactly once is an error that says so")
  func findMustMatchOnce() throws {
    let mutation = try Mutation.parse(
      "# x\nkind: right\n--- A.swift\n<<<<<<< find\nlet c = 3\n=======\nlet c = 4\n>>>>>>> replace\n",
      name: "x")
    #expect(throws: CurriculumError.self) { try mutation.apply(to: solution) }
    let twice = try Mutation.parse(
      "# x\nkind: right\n--- A.swift\n<<<<<<< find\nlet\n=======\nvar\n>>>>>>> replace\n", name: "x")
    #expect(throws: CurriculumError.self) { try twice.apply(to: solution) }
  }

  @Test("A mutation without a note, a kind or a change is rejected")
  func incomplete() {
    #expect(throws: CurriculumError.self) { try Mutation.parse("kind: wrong\n--- A.swift\nx\n", name: "n") }
    #expect(throws: CurriculumError.self) { try Mutation.parse("# n\n--- A.swift\nx\n", name: "n") }
    #expect(throws: CurriculumError.self) { try Mutation.parse("# n\nkind: maybe\n", name: "n") }
    #expect(throws: CurriculumError.self) { try Mutation.parse("# n\nkind: wrong\n", name: "n") }
    #expect(throws: CurriculumError.self) {
      try Mutation.parse("# n\nkind: wrong\n--- A.swift\n<<<<<<< find\nx\n", name: "n")
    }
  }

  @Test("Fixes that keep the solution's declarations are graded first, the others grouped by theirs")
  func buildOrderGroupsByDeclarations() throws {
    let solution = [
      "M.swift": "final class M {\n  var count = 0\n  func bump() {\n    count += 1\n  }\n}\n"
    ]
    func fix(_ name: String, _ kind: String, _ find: String, _ replace: String) throws -> Mutation {
      try Mutation.parse(
        "# \(name)\nkind: \(kind)\n--- M.swift\n<<<<<<< find\n\(find)\n=======\n\(replace)\n>>>>>>> replace\n",
        name: name)
    }
    // A body change keeps the declarations; a stored property or a helper does not.
    let flagWrong = try fix("flag-wrong", "wrong", "  var count = 0", "  var count = 0\n  var flag = false")
    let bodyWrong = try fix("body-wrong", "wrong", "    count += 1", "    count += 2")
    let helperRight = try fix(
      "helper-right", "right", "  func bump() {", "  private func one() -> Int { 1 }\n  func bump() {")
    let flagRight = try fix("flag-right", "right", "  var count = 0", "  var count = 0\n  var flag = false")
    let bodyRight = try fix("body-right", "right", "    count += 1", "    count = count + 1")
    let order = Verifier.buildOrder(
      [flagWrong, bodyWrong, helperRight, flagRight, bodyRight], solution: solution)
    #expect(
      order.map(\.name) == ["body-right", "body-wrong", "flag-right", "flag-wrong", "helper-right"])
    #expect(
      Verifier.declarations(of: try bodyWrong.apply(to: solution)) == Verifier.declarations(of: solution))
    #expect(
      Verifier.declarations(of: try flagWrong.apply(to: solution)) != Verifier.declarations(of: solution))
  }
}

@Suite("verify's order of steps")
struct VerifyOrderTests {
  @Test(
    "The tooling's tests start once, only when a fix copy is done and the solutions' step is too, in either order"
  )
  func whenBoth() {
    for firstComesFirst in [true, false] {
      let runs = Mutex(0)
      let start = WhenBoth { runs.withLock { $0 += 1 } }
      let (one, other) = firstComesFirst ? (start.first, start.second) : (start.second, start.first)
      one()
      one()
      #expect(runs.withLock { $0 } == 0, "started after one of the two only")
      other()
      #expect(runs.withLock { $0 } == 1)
      start.first()
      start.second()
      #expect(runs.withLock { $0 } == 1, "started again")
    }
  }

  @Test("A fix's reason that ends with a colon shows the line that follows it")
  func headline() {
    #expect(
      Verifier.headline(
        of: "the build failed outside any chapter (chapters):\n  error: two entry points\nmore")
        == "the build failed outside any chapter (chapters): error: two entry points")
    #expect(Verifier.headline(of: "does not compile\nX.swift:1: error") == "does not compile")
  }

  @Test(
    "A fix that crashes in some plain runs and passes the others is caught the same way when the race pass fails those"
  )
  func plainRunsAwaitingTheRacePass() {
    func report(raceChecked: Bool, _ statuses: [CheckResult.Status]) -> ChapterReport {
      var report = ChapterReport(
        chapter: Curriculum.Chapter(
          number: 7, name: "Seven", title: "Seven", summary: "", files: ["Code.swift"], hints: [],
          starterFails: ["b"], raceChecked: raceChecked, starterRaces: raceChecked ? ["b"] : []),
        checks: statuses.enumerated().map { CheckResult(id: "c\($0)", name: "c\($0)", status: $1) })
      if raceChecked { report.raceCheck = .waiting }
      return report
    }
    let crashed = report(raceChecked: true, [.passed, .failed])
    let passed = report(raceChecked: true, [.passed, .passed])
    #expect(Verifier.agreement(of: [crashed, passed, crashed]) == .awaitRacePass(passing: 1, failing: 0))
    #expect(Verifier.agreement(of: [passed, passed]) == .agree(varies: false))
    #expect(
      Verifier.agreement(of: [crashed, report(raceChecked: true, [.failed, .passed])]) == .agree(varies: true)
    )
    // Outside a race-checked chapter, passing is a verdict of its own.
    let plainCrashed = report(raceChecked: false, [.passed, .failed])
    let plainPassed = report(raceChecked: false, [.passed, .passed])
    #expect(Verifier.agreement(of: [plainCrashed, plainPassed]) == .disagree(run: 1))
    // A run that does not compile is no failure the race pass could confirm.
    var broken = crashed
    broken.compileErrors = ["Code.swift:1: error: expected expression"]
    #expect(Verifier.agreement(of: [passed, broken]) == .disagree(run: 1))
  }
}

@Suite("verify counts a check that could not decide apart")
struct VerifyUndecidedTests {
  private func report(raceChecked: Bool = false, _ statuses: [CheckResult.Status]) -> ChapterReport {
    ChapterReport(
      chapter: Curriculum.Chapter(
        number: 6, name: "Six", title: "Six", summary: "", files: ["Code.swift"], hints: [],
        starterFails: ["c1"], raceChecked: raceChecked, starterRaces: []),
      checks: statuses.enumerated().map { CheckResult(id: "c\($0)", name: "c\($0)", status: $1) })
  }

  @Test("A fix whose only unpassed checks could not decide is undecided, not caught and not rejected")
  func undecidedFix() {
    #expect(Verifier.isUndecided(report([.passed, .undecided])))
    #expect(Verifier.verdict(report([.passed, .undecided])) == Verifier.couldNotDecide)
    // One failed check decides: the fix is caught.
    #expect(!Verifier.isUndecided(report([.failed, .undecided])))
    #expect(Verifier.verdict(report([.failed, .undecided])) == Verifier.failsACheck)
    #expect(!Verifier.isUndecided(report([.passed, .passed])))
    var broken = report([.undecided])
    broken.compileErrors = ["Code.swift:1: error: expected expression"]
    #expect(!Verifier.isUndecided(broken))
  }

  @Test("A run that could not decide agrees with every other run; the verdict is a decided run's")
  func undecidedRunsAgree() {
    let undecided = report([.passed, .undecided])
    let passed = report([.passed, .passed])
    let failed = report([.failed, .passed])
    #expect(Verifier.agreement(of: [undecided, passed, passed]) == .agree(varies: false))
    #expect(Verifier.representative(of: [undecided, passed, passed]) == 1)
    #expect(Verifier.agreement(of: [undecided, undecided]) == .agree(varies: false))
    #expect(Verifier.representative(of: [undecided, undecided]) == 0)
    // Two decided runs that disagree still disagree.
    #expect(Verifier.agreement(of: [undecided, passed, failed]) == .disagree(run: 2))
  }

  @Test("Runs that differ only where a check could not decide are the same results")
  func sameUpToUndecided() {
    #expect(Verifier.sameUpToUndecided(report([.failed, .undecided]), report([.failed, .passed])))
    #expect(!Verifier.sameUpToUndecided(report([.failed, .passed]), report([.passed, .passed])))
  }

  @Test("verify's closing line counts undecided items apart and is not red for them")
  func closingLine() {
    let tally = Verifier.Tally(style: Style(colored: false), write: { _ in })
    tally.item(true, "a")
    #expect(tally.closingLine == "1 passed, 0 failed")
    tally.undecided("b")
    #expect(tally.passed == 1 && tally.failed == 0 && tally.undecided == 1)
    #expect(tally.closingLine.hasPrefix("1 passed, 0 failed, 1 undecided ("))
  }
}
