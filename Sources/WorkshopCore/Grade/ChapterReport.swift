import CheckTranscript
import Foundation

/// The outcome of one graded check (one `@Test`).
package struct CheckResult: Sendable, Equatable, Codable {
  package enum Status: String, Sendable, Equatable, Codable {
    case passed
    case failed
    /// No complete result: the check crashed, hung or its process ended
    /// while it ran; `issues` says which.
    case interrupted
    case skipped
    /// The check could not decide, even run again alone with more time:
    /// the machine was too busy for its threads to meet. Counted neither
    /// passed nor failed.
    case undecided
  }

  /// Swift Testing's ID for the test.
  package var id: String
  /// The check's display name, in plain words.
  package var name: String
  package var status: Status
  /// What went wrong, one entry per recorded issue, or why there is no result.
  package var issues: [CheckIssue]
  /// How long the check ran, from its start to its end, when both were
  /// recorded (JUnit reports it). Not part of what a check did: two results
  /// that differ only in it are equal.
  package var seconds: Double?

  init(id: String, name: String, status: Status, issues: [CheckIssue] = [], seconds: Double? = nil) {
    self.id = id
    self.name = name
    self.status = status
    self.issues = issues
    self.seconds = seconds
  }

  package static func == (lhs: CheckResult, rhs: CheckResult) -> Bool {
    lhs.id == rhs.id && lhs.name == rhs.name && lhs.status == rhs.status && lhs.issues == rhs.issues
  }
}

/// One thing that went wrong in a check: the kit's verdict, as values, when
/// the check sent one, and the words a report shows.
package struct CheckIssue: Sendable, Equatable, Codable, CustomStringConvertible,
  ExpressibleByStringInterpolation
{
  /// What went wrong, in words: the verdict's prose, Swift Testing's
  /// message, or the grader's own.
  package var text: String
  /// Where in the checks the issue was recorded: `DebouncedSearchTests.swift:42`.
  /// Kept to tell issues apart, never shown.
  package var location: String?
  /// The kit's verdict, decoded from the check's attachment: the values
  /// `text` was written from, and the recorded events.
  package var verdict: Verdict?
  /// Whether an exit test's process crashed (Swift Testing said so).
  package var isCrash = false
  /// Whether ThreadSanitizer reported it: a data race the grader explains.
  package var isRace = false
  /// What the Swift runtime said as the process died, a line each.
  package var runtimeSaid: [String] = []
  /// The place in the learner's code the issue names, when the grader
  /// found one (a data race's access): `Chapters/12-DataRaces/Stats.swift:14`.
  package var codeLocation: String?
  /// The case of a parameterized check it is of, in Swift Testing's words
  /// (`chunk → 0`); its text then starts "With chunk → 0: ".
  package var testCase: String?
  /// The same words in Chinese, when the grader wrote them (a check that
  /// never finished, a process that ended): a report in Chinese shows these.
  /// A verdict's words are not kept twice: its labels are translated as it
  /// is shown, and its values stay as the check recorded them.
  package var chinese: String?

  package init(
    _ text: String, location: String? = nil, verdict: Verdict? = nil, runtimeSaid: [String] = [],
    codeLocation: String? = nil
  ) {
    self.text = text
    self.location = location
    self.verdict = verdict
    self.runtimeSaid = runtimeSaid
    self.codeLocation = codeLocation
  }

  package init(stringLiteral text: String) {
    self.init(text)
  }

  /// The words, as every report shows them. Never where in the checks the
  /// issue was recorded (``location``): a failure points at the learner's
  /// code, not at a file under `Tests/`.
  package var description: String { text }

  /// An issue in the grader's own words, in English and in Chinese.
  package static func both(_ english: String, _ chinese: String) -> CheckIssue {
    var issue = CheckIssue(english)
    issue.chinese = chinese
    return issue
  }

  /// The same issue, its words changed by `change`.
  package func rewording(_ change: (String) -> String) -> CheckIssue {
    var issue = self
    issue.text = change(text)
    return issue
  }
}

/// What grading found for one chapter.
package struct ChapterReport: Sendable, Codable {
  package enum State: String, Sendable, Codable {
    case done = "done"
    case inProgress = "in progress"
    case notStarted = "not started"
    case doesNotCompile = "does not compile"
    case crashed = "crashed"
    case timedOut = "timed out"
    case noChecks = "no checks ran"
    /// Every check passes, but the ThreadSanitizer pass could not run.
    case raceCheckNotRun = "race check not run"
    /// A submission graded by `workshop grade` has no folder for the chapter.
    case notHandedIn = "not handed in"

    /// The state in words, as the learner's table shows it. `rawValue`
    /// stays English: it is what the kept results and class reports store.
    package func label(_ words: Language) -> String {
      switch self {
      case .done: words("done", "已完成")
      case .inProgress: words("in progress", "进行中")
      case .notStarted: words("not started", "未开始")
      case .doesNotCompile: words("does not compile", "编译失败")
      case .crashed: words("crashed", "崩溃")
      case .timedOut: words("timed out", "超时")
      case .noChecks: words("no checks ran", "没有检查运行")
      case .raceCheckNotRun: words("race check not run", "竞争检查未运行")
      case .notHandedIn: words("not handed in", "未提交")
      }
    }

    /// Where a learner is with a chapter, in three steps: what the class
    /// page counts per chapter to tell "stuck" from "not there yet".
    package enum Progress: Sendable {
      /// The chapter fails as shipped, or was not handed in.
      case notStarted
      /// The code changed the results, but not every check passes yet
      /// (or it does not compile, crashed, hung, or missed its race check).
      case started
      case done
    }

    /// This state's step: `.inProgress`, `.doesNotCompile` and the like are `.started`.
    package var progress: Progress {
      switch self {
      case .done: .done
      case .notStarted, .notHandedIn: .notStarted
      case .inProgress, .doesNotCompile, .crashed, .timedOut, .noChecks, .raceCheckNotRun: .started
      }
    }
  }

  /// Where a race-checked chapter's ThreadSanitizer pass is.
  package enum RaceCheck: Sendable, Equatable, Codable {
    /// It runs once every check passes.
    case waiting
    /// Every check passed again under ThreadSanitizer, with no report.
    case clean
    /// Under ThreadSanitizer, a check failed: the checks say which and why.
    case failed
    /// It could not run here; the reason, in one line.
    case notRun(String)
  }

  package var chapter: Curriculum.Chapter
  package var checks: [CheckResult]
  /// The first compiler errors, when the chapter or its checks do not compile.
  package var compileErrors: [String]
  /// How a test process died, with the runtime's own words, when one did.
  package var crash: String?
  /// The time limit, in seconds, when a check did not finish within it.
  package var timeLimit: Double?
  /// The ThreadSanitizer pass, for a chapter `curriculum.json` marks `raceChecked`.
  package var raceCheck: RaceCheck?
  /// Whether a graded submission lacks the chapter's folder.
  package var notHandedIn = false

  package init(
    chapter: Curriculum.Chapter, checks: [CheckResult] = [], compileErrors: [String] = [],
    crash: String? = nil, timeLimit: Double? = nil
  ) {
    self.chapter = chapter
    self.checks = checks
    self.compileErrors = compileErrors
    self.crash = crash
    self.timeLimit = timeLimit
  }

  package var failing: [CheckResult] { checks.filter { $0.status != .passed } }

  /// The checks as they are scored, the same for a learner's table and a
  /// class's grades: in a chapter where the learner writes the checks,
  /// theirs count as one item (how many checks someone writes is not a
  /// score), listed where the class grader lists it; elsewhere, every check.
  package var scored: [CheckResult] {
    guard chapter.writesChecks, !checks.isEmpty else { return checks }
    let own = checks.filter { !$0.id.hasPrefix(Grader.courseItemPrefix) }
    let rules = checks.filter { $0.id.hasPrefix(Grader.courseItemPrefix) }
    let position = min(2, rules.count)  // After the two rules, as `Grader.expectedChecks` lists it.
    var list = rules
    list.insert(ownChecksResult(own), at: position)
    return list
  }

  /// Whether the learner's checks are still to be graded against the
  /// component's other versions (see ``Grader/versionsPending``).
  package var versionsPending: Bool {
    checks.contains(where: Self.isPendingVersion)
  }

  /// How many scored checks pass.
  package var passed: Int { scored.filter { $0.status == .passed }.count }
  /// How many checks are scored.
  package var total: Int { scored.count }

  /// How many scored checks the untouched starter passes: every one that
  /// `curriculum.json` does not list as failing as shipped. Until the
  /// ThreadSanitizer pass has run, the starter's race failures are not seen
  /// yet, so they count as passing, as they do in the table's row.
  package var passedAsShipped: Int {
    let races = raceCheck == .waiting ? [] : chapter.starterRaces
    let failing = Set(chapter.starterFails + races)
    return scored.filter { !failing.contains($0.name) }.count
  }

  /// Whether `check` is a version's item left for later, showing the
  /// untouched starter's result (``Grader/versionAsShipped(id:name:of:)``).
  static func isPendingVersion(_ check: CheckResult) -> Bool {
    check.issues.map(\.text) == [Grader.versionsPendingNote]
  }

  /// The learner's own checks as one item: passed when there is at least one
  /// and every one passed every run; its issues list those that did not.
  private func ownChecksResult(_ own: [CheckResult]) -> CheckResult {
    let item = Grader.ownChecksItem
    guard !own.isEmpty else {
      return CheckResult(
        id: item.id, name: item.name, status: .interrupted,
        issues: [
          CheckIssue.both(
            crash.map { "No check of yours finished: " + $0 } ?? "No check of yours ran.",
            crash.map { "你的检查没有一项完成：" + $0 } ?? "你的检查一项也没有运行。")
        ])
    }
    let failing = own.filter { $0.status != .passed }
    guard !failing.isEmpty else {
      return CheckResult(
        id: item.id, name: item.name, status: .passed, issues: own.map { CheckIssue("✓ " + $0.name) })
    }
    let text = { (words: Language) in
      failing.map { check in
        "✗ \(check.name)\n"
          + check.issues.map { "  " + $0.words(words).replacingOccurrences(of: "\n", with: "\n  ") }
          .joined(separator: "\n")
      }.joined(separator: "\n\n")
    }
    let passing = own.count - failing.count
    return CheckResult(
      id: item.id, name: item.name,
      status: failing.allSatisfy { $0.status == .interrupted } ? .interrupted : .failed,
      issues: [
        CheckIssue.both(
          "\(passing) of \(own.count) of your checks pass.\n\n" + text(.english),
          "你的 \(own.count) 项检查通过了 \(passing) 项。\n\n" + text(.chinese))
      ])
  }

  package var state: State {
    if notHandedIn { return .notHandedIn }
    if !compileErrors.isEmpty { return .doesNotCompile }
    if timeLimit != nil { return .timedOut }
    if crash != nil { return .crashed }
    if checks.isEmpty { return .noChecks }
    // A chapter whose items against the versions are pending is never done.
    if failing.isEmpty && !versionsPending {
      if case .notRun? = raceCheck { return .raceCheckNotRun }
      return .done
    }
    // Until its checks pass, a race-checked chapter has not run under
    // ThreadSanitizer: the starter fails only its plain checks then. Items
    // pending against the versions fail in neither.
    let failingNames = Set(failing.filter { !Self.isPendingVersion($0) }.map(\.name))
    let pendingNames = Set(scored.filter(Self.isPendingVersion).map(\.name))
    let asShipped = Set(chapter.starterFails).subtracting(pendingNames)
    if failingNames == asShipped.union(chapter.starterRaces)
      || (raceCheck == .waiting && failingNames == asShipped)
    {
      return .notStarted
    }
    return .inProgress
  }

  /// The names of the checks that did not pass, for comparing runs.
  package var signature: String {
    "\(state.rawValue)\(raceCheck.map { " (TSan \($0))" } ?? ""): "
      + checks.map { "\($0.name)=\($0.status.rawValue)" }.joined(separator: "; ")
  }
}
