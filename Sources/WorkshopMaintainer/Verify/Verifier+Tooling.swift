import Foundation
import Synchronization
import WorkshopCore

extension Verifier {
  /// What running the tooling's tests gave: per test module, its report;
  /// or why they could not run.
  typealias ToolingReports = Result<[(module: String, report: ChapterReport)], GradingError>

  /// The test kit's and the runner's own tests, run from the solutions
  /// build on a thread of their own once ``start()`` is called.
  ///
  /// `verify` starts them when the first copy of the course is done with its
  /// fixes. Alone on two cores they take about 146 s and 85 s of CPU, most
  /// of it waiting (on sandboxes that must outlive a grace period, on
  /// fixture packages built one after another), so the other copy's tail
  /// and they share the cores well. Started with the solutions instead, they
  /// took 333 s beside the fixes, whose rounds they slowed by as much: one
  /// test keeps both cores busy on purpose while it grades a hanging chapter,
  /// for as long as that takes, and `verify` ended no sooner (845 s).
  final class ToolingTests: Sendable {
    private let workspace: Workspace
    private let progress: (@Sendable (String) -> Void)?
    private let run = Mutex<Background<ToolingReports>?>(nil)

    init(workspace: Workspace, progress: (@Sendable (String) -> Void)?) {
      self.workspace = workspace
      self.progress = progress
    }

    /// Starts the tests, once; later calls do nothing.
    func start() {
      let (workspace, progress) = (self.workspace, self.progress)
      run.withLock { run in
        if run == nil {
          run = Background { Verifier.toolingReports(workspace: workspace, progress: progress) }
        }
      }
    }

    /// Their reports, starting them first if nothing did.
    func wait() -> ToolingReports {
      start()
      return run.withLock { $0! }.value()
    }
  }

  /// Runs the test kit's and the runner's own tests from the solutions build.
  static func toolingReports(workspace: Workspace, progress: (@Sendable (String) -> Void)?) -> ToolingReports
  {
    // The tooling's tests build packages and start sandboxes of their own:
    // they are the course's code, not a learner's, and run unsandboxed.
    var grader = Grader(
      workspace: workspace, variant: .solutions, timeLimit: 1800, isolation: .none, progress: progress)
    grader.runnerTests = true
    // The runner's tests take minutes: their whole run gets half the limit.
    grader.wholeRunCap = nil
    let build: Build
    let expected: [ExpectedCheck]
    do {
      build = try grader.build()
      expected = try TestRun(build: build, environment: Grader.childEnvironment, sandbox: nil).listChecks()
    } catch {
      return .failure(GradingError(description: "\(error)"))
    }
    return .success(
      toolingTestModules.map { module in
        let pseudoChapter = Curriculum.Chapter(
          number: 0, name: String(module.dropLast("Tests".count)), title: module, summary: "", files: [],
          hints: [], starterFails: [])
        progress?("Running \(module)")
        return (
          module,
          grader.grade(
            pseudoChapter, expecting: expected.filter { $0.id.hasPrefix(module + ".") }, build: build)
        )
      })
  }

  /// Counts the tooling's tests, one item per test; a test that skips
  /// itself is said with its reason and counts neither way.
  func reportToolingTests(_ tally: Tally, _ reports: ToolingReports) {
    let modules: [(module: String, report: ChapterReport)]
    switch reports {
    case .success(let all): modules = all
    case .failure(let error):
      tally.item(false, "the tooling build", [error.description])
      return
    }
    for (module, report) in modules {
      if report.checks.isEmpty {
        tally.item(false, "\(module): no tests ran", problems(of: report))
      }
      // A test that skips itself (a tool this machine lacks) is said, with
      // its reason, and counts neither way: verify passes where learners
      // are, with only the toolchain.
      let ran = report.checks.filter { $0.status != .skipped }
      for check in ran {
        tally.item(
          check.status == .passed, "\(module): \(check.name)",
          check.issues.map { firstLines($0.description, 6) },
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
        tally.skip("\(module): \(check.name)", because: check.issues.first?.text ?? "it skipped itself")
      }
      if let crash = report.crash { tally.item(false, "\(module) crashed", [crash]) }
      if report.timeLimit != nil { tally.item(false, "\(module) timed out", []) }
    }
  }
}
