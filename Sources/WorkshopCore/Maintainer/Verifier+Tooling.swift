import Foundation

extension Verifier {
  /// Runs the test kit's and the runner's own tests from the solutions
  /// build, one item per test; a test that skips itself is said with its
  /// reason and counts neither way.
  func runToolingTests(_ tally: Tally) {
    // The tooling's tests build packages and start sandboxes of their own:
    // they are the course's code, not a learner's, and run unsandboxed.
    var grader = Grader(
      workspace: workspace, variant: .solutions, timeLimit: 1800, isolation: .none, progress: progress)
    grader.runnerTests = true
    let build: Build
    let expected: [ExpectedCheck]
    do {
      build = try grader.build()
      expected = try TestRun(build: build, environment: Grader.childEnvironment, sandbox: nil).listChecks()
    } catch {
      tally.item(false, "the tooling build", ["\(error)"])
      return
    }
    for module in Self.toolingTestModules {
      let pseudoChapter = Curriculum.Chapter(
        number: 0, name: String(module.dropLast("Tests".count)), title: module, summary: "", files: [],
        hints: [], starterFails: [])
      progress?("Running \(module)")
      let report = grader.grade(
        pseudoChapter, expecting: expected.filter { $0.id.hasPrefix(module + ".") }, build: build)
      if report.checks.isEmpty {
        tally.item(false, "\(module): no tests ran", problems(of: report))
      }
      // A test that skips itself (a tool this machine lacks) is said, with
      // its reason, and counts neither way: verify passes where learners
      // are, with only the toolchain.
      let ran = report.checks.filter { $0.status != .skipped }
      for check in ran {
        tally.item(
          check.status == .passed, "\(module): \(check.name)", check.issues.map { firstLines($0, 6) },
          quiet: true)
      }
      let passed = ran.filter { $0.status == .passed }.count
      if !report.checks.isEmpty {
        let skipped = report.checks.count - ran.count
        write(
          "  " + style.mark(passed == ran.count)
            + " \(module): \(passed)/\(ran.count) tests pass"
            + (skipped == 0 ? "" : style.dim(", \(skipped) skipped")))
      }
      for check in report.checks where check.status == .skipped {
        tally.skip("\(module): \(check.name)", because: check.issues.first ?? "it skipped itself")
      }
      if let crash = report.crash { tally.item(false, "\(module) crashed", [crash]) }
      if report.timeLimit != nil { tally.item(false, "\(module) timed out", []) }
    }
  }
}
