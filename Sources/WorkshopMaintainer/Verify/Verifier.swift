import Foundation
import Synchronization
import WorkshopCore

/// `workshop verify`: checks the course, not a learner's progress.
///
/// 1. The layout: every chapter has its starter, README, solution (path for
///    path), checks and slides; hints; TODO markers; Package.swift's chapter list.
///    The sources use platform-only APIs only where guarded, and nothing
///    newer than the declared macOS; the CI workflows pass actionlint.
/// 2. Every solution passes every check.
/// 3. Every starter fails exactly the checks `curriculum.json` declares.
/// 4. The test kit's and the runner's own tests pass.
/// 5. Every chapter's wrong fixes (`Mutations/`) fail a check, its right ones pass.
/// 6. With `--repeat N`, every chapter's results, and every fix's, are
///    identical in all N runs.
///
/// Every item counts once; the closing line is `N passed, M failed`.
struct Verifier {
  var workspace: Workspace
  var style: Style
  var timeLimit: Double
  var repeatCount: Int
  /// When set, only these chapters' wrong and right fixes are checked (for
  /// writing them), nothing else.
  var onlyFixesOf: [Curriculum.Chapter]?
  /// Writes one line of the report.
  var write: (String) -> Void
  /// Shows transient progress (on a terminal only).
  var progress: (@Sendable (String) -> Void)?

  /// The test modules of the tooling, run from the solutions build.
  static let toolingTestModules = ["ConcurrencyTestKitTests", "WorkshopCoreTests"]

  init(
    workspace: Workspace, style: Style, timeLimit: Double, repeatCount: Int,
    onlyFixesOf: [Curriculum.Chapter]? = nil,
    write: @escaping (String) -> Void, progress: (@Sendable (String) -> Void)? = nil
  ) {
    self.onlyFixesOf = onlyFixesOf
    self.workspace = workspace
    self.style = style
    self.timeLimit = timeLimit
    self.repeatCount = repeatCount
    self.write = write
    self.progress = progress
  }

  /// Counts verification items and prints them.
  final class Tally {
    var passed = 0
    var failed = 0
    /// Items whose checks could not decide, even run again alone with more
    /// time: counted neither passed nor failed.
    var undecided = 0
    let style: Style
    let write: (String) -> Void

    init(style: Style, write: @escaping (String) -> Void) {
      self.style = style
      self.write = write
    }

    /// Prints an item that could not be checked here, with why; it counts neither way.
    func skip(_ text: String, because reason: String) {
      write("  " + style.dim("- \(text): skipped, \(reason)"))
    }

    /// Counts one item; prints it unless it passed and is `quiet`.
    func item(_ ok: Bool, _ text: String, _ details: [String] = [], quiet: Bool = false) {
      if ok { passed += 1 } else { failed += 1 }
      if ok && quiet { return }
      write("  " + style.mark(ok) + " " + text)
      for line in details { write("      " + line) }
    }

    /// Counts an item whose checks could not decide (see
    /// ``Verifier/isUndecided(_:)``): neither passed nor failed, and printed
    /// with why.
    func undecided(_ text: String, _ details: [String] = []) {
      undecided += 1
      write("  " + style.yellow("?") + " " + text + style.yellow("  (undecided)"))
      for line in details { write("      " + line) }
    }

    /// `N passed, M failed`, and how many could not decide when some could not.
    var closingLine: String {
      "\(passed) passed, \(failed) failed"
        + (undecided == 0
          ? ""
          : ", \(undecided) undecided (the machine was too busy for some checks' threads to meet; run verify again)")
    }

    /// The closing line in its colour: green when nothing failed and
    /// everything decided, yellow when nothing failed but something could
    /// not decide, red when something failed.
    var styledClosingLine: String {
      failed > 0
        ? style.red(closingLine) : undecided > 0 ? style.yellow(closingLine) : style.green(closingLine)
    }
  }

  /// Runs every verification and returns the counts.
  func run() -> (passed: Int, failed: Int) {
    let tally = Tally(style: style, write: write)
    if let chapters = onlyFixesOf {
      write(style.bold("Wrong fixes fail, right fixes pass"))
      checkMutations(tally, chapters: chapters)
      write("")
      write(tally.styledClosingLine)
      return (tally.passed, tally.failed)
    }

    // What waits on other programs, or only reads the course, runs beside
    // the steps that build and grade, and is reported in its place later:
    // the slides' browser check (see ``startSlidesCheck()``) and the
    // platform scan here, the checks' pointers once the solutions are
    // graded, the starters' timelines once they are.
    let slides = startSlidesCheck()
    let platforms = startPlatformScan()
    // The wrong and right fixes (4) take most of the time and run in copies
    // of their own: they start now and are reported in their place. The
    // tooling's tests (6) start when the first copy is done with its fixes
    // and the solutions' step is done (they build in its folder).
    let tooling = ToolingTests(workspace: workspace, progress: progress)
    let startTooling = WhenBoth { tooling.start() }
    let fixes = startFixes(whenACopyIsDone: startTooling.first)

    // 1. Layout.
    write(style.bold("Course layout"))
    checkLayout(tally)

    // 2. Solutions.
    if Sandbox.current == nil { write(style.dim("  note: " + Sandbox.unavailableNote)) }
    write("")
    write(style.bold("Solutions pass every check"))
    let solutionRuns = gradeRepeatedly(.solutions, tally)
    if let reports = solutionRuns.first {
      for report in reports {
        let failing = report.failing
        if Self.isUndecided(report) {
          tally.undecided(
            "\(report.chapter.paddedNumber) \(report.chapter.title): \(report.passed)/\(report.total) checks pass",
            failing.map { "? \($0.name): could not decide, the machine was too busy for the threads to meet" }
          )
          continue
        }
        tally.item(
          failing.isEmpty && !report.checks.isEmpty && report.compileErrors.isEmpty
            && report.crash == nil && report.timeLimit == nil,
          "\(report.chapter.paddedNumber) \(report.chapter.title): \(report.passed)/\(report.total) checks pass",
          problems(of: report)
            + failing.flatMap {
              ["✗ \($0.name)"] + $0.issues.prefix(1).map { "  " + firstLines($0.description, 4) }
            })
      }
    }

    startTooling.second()
    let pointers = solutionRuns.first.map(startExercisedCheck(reports:))

    write("")
    write(style.bold("Runs on Linux and macOS"))
    checkPlatforms(tally, scan: platforms)

    write("")
    write(style.bold("Slides"))
    let checkNames = (solutionRuns.first ?? []).reduce(into: [Int: [String]]()) {
      if !$1.checks.isEmpty { $0[$1.chapter.number] = $1.checks.map(\.name) }
    }
    checkSlides(tally, browser: slides, checks: checkNames)
    checkTranslations(tally, checks: checkNames)

    // 3. Starters.
    write("")
    write(style.bold("Starters fail exactly the declared checks"))
    let dirty = gitStatus(paths: ["Chapters"])
    if !dirty.isEmpty {
      write(
        style.yellow(
          "  note: Chapters/ has local changes; verify expects the starters as shipped (run it in a clean clone)."
        ))
    }
    let starterRuns = gradeRepeatedly(.chapters, tally)
    if let reports = starterRuns.first {
      for report in reports {
        let declared = Set(report.chapter.starterFails + report.chapter.starterRaces)
        let names = Set(report.checks.map(\.name))
        // A check that could not decide neither fails nor passes as declared.
        let undecided = Set(report.checks.filter { $0.status == .undecided }.map(\.name))
        let failing = Set(report.failing.map(\.name)).subtracting(undecided)
        var details = problems(of: report)
        for name in declared.subtracting(names).sorted() {
          details.append("declared, but no such check: \(name)")
        }
        for name in declared.intersection(names).subtracting(failing).subtracting(undecided).sorted() {
          details.append("expected to fail, but passes: \(name)")
        }
        for name in failing.subtracting(declared).sorted() {
          details.append("fails, but is not declared: \(name)")
        }
        if declared.isEmpty { details.append("curriculum.json declares no failing check for this starter") }
        details += Self.namesOfTheChecks(in: report)
        if details.isEmpty && !undecided.isEmpty {
          tally.undecided(
            "\(report.chapter.paddedNumber) \(report.chapter.title): fails \(report.total - report.passed) of \(report.total) checks, as declared",
            undecided.sorted().map {
              "? \($0): could not decide, the machine was too busy for the threads to meet"
            })
          continue
        }
        tally.item(
          details.isEmpty,
          "\(report.chapter.paddedNumber) \(report.chapter.title): fails \(report.total - report.passed) of \(report.total) checks, as declared",
          details)
      }
    }

    if let pointers {
      write("")
      write(style.bold("Failing checks point at the code they exercise"))
      checkExercised(tally, pointers)
    }

    let timelines = starterRuns.first.map(startTimelineRender(starters:))

    // 4. The checks against the course's own wrong and right fixes.
    write("")
    write(style.bold("Wrong fixes fail, right fixes pass"))
    reportFixes(fixes, into: tally)

    if let timelines {
      write("")
      write(style.bold("Timelines of failing checks"))
      checkTimelines(tally, render: timelines)
    }

    // 5. Determinism.
    if repeatCount > 1 {
      write("")
      write(style.bold("Identical results over \(repeatCount) runs"))
      for (variant, runs) in [(Variant.solutions, solutionRuns), (.chapters, starterRuns)] where !runs.isEmpty
      {
        for (index, report) in runs[0].enumerated() {
          let differing = runs.indices.filter { !Self.sameUpToUndecided(runs[$0][index], report) }
          tally.item(
            differing.isEmpty,
            "\(variant.rawValue) \(report.chapter.paddedNumber) \(report.chapter.title): identical in \(runs.count) runs",
            differing.prefix(3).map { "run \($0 + 1): \(runs[$0][index].signature)" }
              + (differing.isEmpty ? [] : ["run 1: \(report.signature)"]))
        }
      }
    }

    // 6. Tooling.
    write("")
    write(style.bold("Test kit and runner tests"))
    reportToolingTests(tally, tooling.wait())

    write("")
    write(tally.styledClosingLine)
    return (tally.passed, tally.failed)
  }

  // MARK: - Steps

  /// How many times the kit's bound a check that could not decide gets when
  /// `verify` runs it again: what `grade` gives after the class (twice what
  /// `check` gives). `verify` must decide every check of the course's own
  /// code, and is not in a learner's loop; the extra time is spent only on
  /// a busy machine.
  static let patience = 2 * Grader.defaultPatience

  /// What a report's failures, as learners read them (the words, what the
  /// runtime said, a race's places), say of the hidden checks: a path under
  /// `Tests/` or a file of a test target (`ContinuationsTests.swift`). A
  /// failure points at the learner's own code, never there.
  static func namesOfTheChecks(in report: ChapterReport) -> [String] {
    var found: [String] = []
    for check in report.checks where check.status != .passed {
      for issue in check.issues {
        let shown = ([issue.description] + issue.runtimeSaid + [issue.codeLocation ?? ""]).joined(
          separator: "\n")
        // In a chapter where learners write checks, `…Tests.swift` are their own files.
        let pattern =
          report.chapter.writesChecks
          ? #/(?:^|[\s(])(Tests/\S*)/#
          : #/(?:^|[\s(/])(Tests/\S*|[\w+-]+Tests\.swift(?::\d+)?)/#
        if let match = shown.firstMatch(of: pattern) {
          found.append("a failure names a file of the checks (\(match.output.1)): \(check.name)")
          break
        }
      }
    }
    return found
  }

  /// Builds a variant once and grades it `repeatCount` times; empty if the build failed.
  private func gradeRepeatedly(_ variant: Variant, _ tally: Tally) -> [[ChapterReport]] {
    // The starters run under ThreadSanitizer too, though their checks fail:
    // their races are declared (starterRaces) and must show every time.
    var grader = Grader(
      workspace: workspace, variant: variant, timeLimit: timeLimit,
      racePass: variant == .chapters ? .always : .whenChecksPass, progress: progress)
    // The solutions build holds the runner's tests too: they run from it last.
    grader.runnerTests = variant == .solutions
    grader.patience = Self.patience
    do {
      let build = try grader.build(force: true)
      return try Self.repeatedRuns(
        grader, workspace.curriculum.chapters, build: build, label: variant.rawValue,
        repeatCount: repeatCount,
        progress: progress)
    } catch {
      tally.item(false, "the \(variant.rawValue) build", ["\(error)"])
      return []
    }
  }

  /// How many repeated runs grade at the same time: most of a run is waiting
  /// (for a process, for a failing check's hang bound), and the extra load
  /// is part of what `--repeat` proves results independent of.
  static let parallelRuns = 3

  /// Grades `chapters` from `build` `repeatCount` times: the first run alone
  /// (it brings the ThreadSanitizer build up to date), the others
  /// `parallelRuns` at a time, sharing that build.
  static func repeatedRuns(
    _ grader: Grader, _ chapters: [Curriculum.Chapter], build: Build, label: String, repeatCount: Int,
    progress: (@Sendable (String) -> Void)?
  ) throws -> [[ChapterReport]] {
    progress?("Run 1 of \(repeatCount) (\(label))")
    let first = try grader.run(chapters, build: build)
    guard repeatCount > 1 else { return [first] }
    let sanitized = first.contains { report in
      switch report.raceCheck {
      case .clean?, .failed?: true
      default: false
      }
    }
    let raceBuild = sanitized ? try grader.raceBuild() : nil
    let done = Mutex(1)
    let rest = concurrentMap(Array(1..<repeatCount), width: Self.parallelRuns) { _ in
      let result = Result { try grader.run(chapters, build: build, raceBuild: raceBuild) }
      let count = done.withLock { count in
        count += 1
        return count
      }
      progress?("Run \(count) of \(repeatCount) (\(label))")
      return result
    }
    return [first] + (try rest.map { try $0.get() })
  }

  // MARK: - Helpers

  /// Whether two runs of one chapter's checks gave the same results, a
  /// check that could not decide in either agreeing with whatever the
  /// other gave.
  static func sameUpToUndecided(_ one: ChapterReport, _ other: ChapterReport) -> Bool {
    guard one.signature != other.signature else { return true }
    return one.checks.map(\.name) == other.checks.map(\.name) && one.raceCheck == other.raceCheck
      && one.compileErrors.isEmpty == other.compileErrors.isEmpty
      && (one.crash == nil) == (other.crash == nil)
      && (one.timeLimit == nil) == (other.timeLimit == nil)
      && zip(one.checks, other.checks).allSatisfy {
        $0.status == $1.status || $0.status == .undecided || $1.status == .undecided
      }
  }

  func problems(of report: ChapterReport) -> [String] {
    var lines: [String] = []
    lines += report.compileErrors.map { "does not compile: " + firstLines($0, 3) }
    if let crash = report.crash { lines.append("crashed: " + crash) }
    if let limit = report.timeLimit { lines.append("timed out after \(Int(limit)) s") }
    if report.checks.isEmpty && report.compileErrors.isEmpty && report.crash == nil && report.timeLimit == nil
    {
      lines.append("no checks ran")
    }
    return lines
  }

  func firstLines(_ text: String, _ count: Int) -> String {
    text.split(separator: "\n").prefix(count).joined(separator: "\n        ")
  }

  private func gitStatus(paths: [String]) -> String {
    let outcome = try? Subprocess.run(
      "git", ["-C", workspace.root.path, "status", "--porcelain", "--"] + paths, timeout: 30)
    guard let outcome, outcome.succeeded else { return "" }
    return outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
