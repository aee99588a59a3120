import CheckTranscript
import Foundation
import Synchronization

/// Builds a variant and grades chapters, each in processes of its own.
///
/// A grade is complete or says why not. The checks to expect are listed from
/// the build before any of them runs; a check counts only from a run that
/// reported its own end and exited as Swift Testing does. When a run ends any
/// other way (a crash, a hang, an `exit` in the code under test), every check
/// of the chapter runs again alone, so that the failure is pinned on the check
/// that caused it and the others still get a real result. All of it, reruns
/// included, fits in the chapter's time limit.
package struct Grader: Sendable {
  /// The time limit for one chapter's grading, in seconds, unless told otherwise.
  ///
  /// A correct chapter's checks take well under a second; the kit's hang guard
  /// fails a stuck `await` after one. This limit is for code that blocks a
  /// thread or spins: half of it goes to the chapter's run, the rest to
  /// running its checks alone.
  package static let defaultTimeLimit: Double = 30

  var workspace: Workspace
  var variant: Variant
  /// The hard limit for one chapter's grading, reruns included, in seconds.
  var timeLimit: Double
  /// Where checks run.
  package enum Isolation: Sendable {
    /// In this machine's sandbox if it has one, found while the build runs.
    case automatic
    /// Unsandboxed: the course's own tooling tests, which build packages.
    case none
    /// In this sandbox.
    case sandbox(Sandbox)
  }

  var isolation: Isolation

  /// When the ThreadSanitizer pass runs for a race-checked chapter.
  package enum RacePass: Sendable {
    /// Once every check passes (learners: a chapter whose checks fail is
    /// not done either way, and the instrumented build is slow).
    case whenChecksPass
    /// Whatever the plain checks did (`verify`, for the starters).
    case always
    /// Not in this run: a race-checked chapter's report says its race check
    /// waits, and the caller runs ``raceCheck(_:build:)`` later (`verify`
    /// grades the race pass of many fixes together, in a few builds).
    case deferred
  }

  package var racePass: RacePass = .whenChecksPass
  /// The most a chapter's whole run waits before its checks run alone
  /// (see ``wholeRunLimit``); nil for half the time limit, for suites
  /// whose tests take minutes (the runner's own, in `verify`).
  package var wholeRunCap: Double? = Grader.chapterWholeRunCap
  /// How many times the kit's bound an undecided check gets when it runs
  /// again (see ``decideAgain(_:build:)``): `grade` asks for more after the
  /// class, when the machine is no longer busy with it.
  package var patience: Double = Grader.defaultPatience
  /// The sandbox checks run in, if any.
  package var sandbox: Sandbox? {
    var sandbox: Sandbox?
    switch isolation {
    case .automatic: sandbox = Sandbox.current
    case .none: sandbox = nil
    case .sandbox(let chosen): sandbox = chosen
    }
    sandbox?.hidden = hiddenFromChecks
    return sandbox
  }

  /// The sandbox builds run in: the checks' own, for the learner's code
  /// (compiling and linking it runs it), none for the course's solutions,
  /// whose build holds the runner's own tests.
  package var buildSandbox: Sandbox? {
    variant == .chapters ? sandbox : nil
  }

  /// Where the versions of components that learners' checks are graded
  /// against are written down: checks run where they cannot read them.
  var hiddenFromChecks: [String] {
    var folders = [workspace.url("Mutations").path]
    for chapter in workspace.curriculum.chapters where chapter.writesChecks {
      folders.append(workspace.url(Self.variantsFolder(chapter)).path)
    }
    for variant in [Variant.chapters, .solutions] {
      folders.append(workspace.url(VariantWorkspace.folder(for: variant) + "/Variants").path)
    }
    return folders
  }
  /// Called with short progress lines ("Building 12/40") while work goes on.
  var progress: (@Sendable (String) -> Void)?
  /// The language of the progress lines (see ``Language``).
  package var words: Language = .english
  /// Called with each chapter's report once it is final, from the thread
  /// that graded it, before the others are done: the progress table prints
  /// a chapter's row as soon as it has one. A report is given only while
  /// the course's own files are as they were when the run started (see
  /// ``RunWitness``): a run that ends voided shows no row it cannot vouch for.
  package var reported: (@Sendable (ChapterReport) -> Void)?
  /// Whether builds hold the runner's own tests (`verify` runs them).
  package var runnerTests = false
  /// Chapters in which the learner writes the checks whose grading against
  /// the component's other versions waits until the learner starts the
  /// chapter: their items are reported pending, not run. The progress table
  /// sets it for untouched chapters, so that a first run does not build the
  /// versions (about a minute, cold) before anyone has written a check;
  /// `check` and `watch` of the chapter, and a class's grading, grade them.
  package var versionsPending: Set<Int> = []
  /// Chapters this grader's builds leave out (`verify` grades the course's
  /// fixes in two copies side by side, each building its own chapters).
  package var leftOut: Set<Int> = []
  /// Whether a build after edits confined to chapters' own files (and to a
  /// learner's checks, in the copy that grades them against each version)
  /// compiles them without SwiftPM, from the plan of its last build (see
  /// ``ChapterRebuild/rebuildChanged(after:)``): `verify` places a fix in
  /// each of several chapters a round, then builds.
  package var rebuildsWithoutSwiftPM = false

  package init(
    workspace: Workspace, variant: Variant, timeLimit: Double = Grader.defaultTimeLimit,
    isolation: Isolation = .automatic, racePass: RacePass = .whenChecksPass,
    progress: (@Sendable (String) -> Void)? = nil
  ) {
    self.racePass = racePass
    self.workspace = workspace
    self.variant = variant
    self.timeLimit = timeLimit
    self.isolation = isolation
    self.progress = progress
  }

  /// The environment builds and checks start from: only the variables the
  /// toolchain needs, taken from this process's, and the runner's own
  /// temporary folder. Nothing else of the shell that started the runner (a
  /// token, a password, the dynamic loader's paths Xcode sets for the
  /// `workshop` scheme) reaches learner code; the test launcher adds what
  /// the checks need.
  package static var childEnvironment: [String: String] {
    var environment = ProcessInfo.processInfo.environment.filter { passedVariables.contains($0.key) }
    environment["TMPDIR"] = TemporaryFolder.shared.url.path
    environment[Heartbeat.environmentKey] = "1"
    return environment
  }

  /// The variables of the runner's environment that builds and checks get:
  /// where the toolchain is (`PATH`; on macOS, Xcode's choice of developer
  /// folder, toolchain and SDK), its caches (`HOME`), the text encoding, and
  /// the kit's own setting for slow machines.
  static let passedVariables: Set<String> = [
    "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "DEVELOPER_DIR", "TOOLCHAINS", "SDKROOT",
    "WORKSHOP_HANG_BOUND", "WORKSHOP_NO_SANDBOX",
  ]

  /// Builds the variant with its checks (see ``Builder``).
  package func build(force: Bool = false) throws -> Build {
    try builder.build(force: force)
  }

  /// The builder of this grader's plain builds.
  private var builder: Builder {
    var builder = Builder(
      workspace: workspace, variant: variant, leftOut: leftOut, environment: Self.childEnvironment,
      progress: progress)
    builder.runnerTests = runnerTests
    builder.words = words
    builder.sandbox = buildSandbox
    if rebuildsWithoutSwiftPM {
      builder.quickModules = ChapterRebuild.chapterModules(in: workspace, variant: variant)
    }
    return builder
  }

  /// Grades one chapter whose files alone changed since the last complete
  /// build without starting SwiftPM, as `watch` does after a save (see
  /// ``ChapterRebuild``): the same compiler and linker jobs SwiftPM planned,
  /// so the same verdict. Nil when that path does not apply (anything else
  /// changed, a chapter whose checks the learner writes, no build yet): the
  /// caller grades as usual.
  package func gradeQuickly(_ chapter: Curriculum.Chapter) throws -> [ChapterReport]? {
    let builder = self.builder
    let files = Fingerprint.states(workspace: workspace, variant: variant)
    // Nothing changed: the last build as it is, as ``build(force:)`` would.
    if let unchanged = builder.lastCompleteBuild(ifBuiltFrom: files) {
      return try run([chapter], build: unchanged)
    }
    guard let last = builder.lastCompleteBuild() else { return nil }
    let rebuild = ChapterRebuild(
      workspace: workspace, variant: variant, environment: Self.childEnvironment, sandbox: buildSandbox)
    progress?(words("Compiling chapter \(chapter.paddedNumber)", "正在编译第 \(chapter.paddedNumber) 章"))
    switch rebuild.rebuild(chapter, after: last) {
    case .built(let build, _): return try run([chapter], build: build)
    case .compileErrors(let errors): return [ChapterReport(chapter: chapter, compileErrors: errors)]
    case .unavailable: return nil
    }
  }

  /// Builds, with ThreadSanitizer, the chapters `curriculum.json` marks
  /// `raceChecked`, in a scratch folder of their own (see ``Builder``).
  ///
  /// - Parameter chapters: only these of them, when given: the pass runs
  ///   only for chapters whose checks pass, and the instrumented compile of
  ///   a chapter costs several times the plain one, so the others are left
  ///   out until they are ready (a learner's first race check compiles one
  ///   chapter, not seven).
  package func raceBuild(only chapters: [Curriculum.Chapter]? = nil) throws -> Build {
    let wanted = chapters.map { Set($0.map(\.number)) }
    let leftOut = Set(
      workspace.curriculum.chapters.filter { !$0.raceChecked || wanted?.contains($0.number) == false }
        .map(\.number)
    ).union(self.leftOut)
    var builder = Builder(
      workspace: workspace, variant: variant, sanitizer: .thread, leftOut: leftOut,
      environment: Self.childEnvironment, progress: progress)
    builder.words = words
    builder.sandbox = buildSandbox
    if rebuildsWithoutSwiftPM {
      builder.quickModules = ChapterRebuild.chapterModules(in: workspace, variant: variant).filter {
        $0.chapter.map { !leftOut.contains($0) } ?? false
      }
    }
    return try builder.build()
  }

  /// Grades every chapter (or those given) and returns their reports in course order.
  package func grade(_ chapters: [Curriculum.Chapter]? = nil) throws -> [ChapterReport] {
    return try run(chapters ?? workspace.curriculum.chapters, build: try build())
  }

  /// How many chapters are graded at the same time. Most of a failing
  /// chapter's time is a hang guard waiting, not CPU, so this exceeds the cores.
  static let parallelChapters = 8

  /// Grades `chapters` from an existing build, each in processes of its own.
  ///
  /// `raceBuild`, when given, is the up-to-date ThreadSanitizer build to use
  /// instead of asking SwiftPM again (for runs repeated from one build);
  /// `expected`, the checks the build holds, when the caller knows them
  /// (`watch`, after an edit that did not touch them).
  package func run(
    _ chapters: [Curriculum.Chapter], build: Build, raceBuild: Build? = nil, expected: [ExpectedCheck]? = nil
  ) throws -> [ChapterReport] {
    let witness = RunWitness(workspace: workspace, build: build)
    let expected = try expected ?? listChecks(build)
    let finished = Mutex(0)
    let pending = chapters.filter { build.brokenChapters[$0.number] == nil }
    // A chapter that has a pass to go through (ThreadSanitizer, the
    // learner's checks against other versions) is reported after it.
    let deliver = { @Sendable (report: ChapterReport) in
      guard let reported, (try? witness.confirm(workspace: workspace, build: build)) != nil else { return }
      reported(report)
    }
    let reports = concurrentMap(chapters, width: Self.parallelChapters) { chapter in
      if let errors = build.brokenChapters[chapter.number] {
        let report = ChapterReport(chapter: chapter, compileErrors: errors)
        if let final = finalBeforeFinish(report) { deliver(final) }
        return report
      }
      let prefix = chapter.testModule + "."
      let report = grade(chapter, expecting: expected.filter { $0.id.hasPrefix(prefix) }, build: build)
      let count = finished.withLock { count in
        count += 1
        return count
      }
      progress?(words("Grading \(count)/\(pending.count)", "正在评分 \(count)/\(pending.count)"))
      if let final = finalBeforeFinish(report) { deliver(final) }
      return report
    }
    let checked = finish(reports, build: build, raceBuild: raceBuild)
    try witness.confirm(workspace: workspace, build: build)
    if reported != nil {
      for (plain, report) in zip(reports, checked) where finalBeforeFinish(plain) == nil {
        reported?(report)
      }
    }
    return checked
  }

  /// `report` as ``finish(_:build:raceBuild:)`` will return it, when no
  /// pass of its runs on it; nil when one does.
  func finalBeforeFinish(_ report: ChapterReport) -> ChapterReport? {
    guard !report.chapter.writesChecks, !racesReady(report) else { return nil }
    return Self.waitingForRaces(report)
  }

  /// The ThreadSanitizer pass and the grading of learners' own checks, side
  /// by side: they grade different chapters, and each mostly waits (for a
  /// build, for test processes).
  func finish(_ reports: [ChapterReport], build: Build, raceBuild: Build?) -> [ChapterReport] {
    guard !reports.contains(where: { $0.chapter.raceChecked && $0.chapter.writesChecks }) else {
      return checkTheChecks(raceCheck(reports, build: raceBuild), build: build)
    }
    let both = concurrentMap([0, 1], width: 2) { pass in
      pass == 0 ? raceCheck(reports, build: raceBuild) : checkTheChecks(reports, build: build)
    }
    return reports.indices.map { index in
      reports[index].chapter.writesChecks ? both[1][index] : both[0][index]
    }
  }
}

/// The first line of `text`.
package func firstLine(of text: String) -> String {
  text.split(separator: "\n").first.map(String.init) ?? text
}
