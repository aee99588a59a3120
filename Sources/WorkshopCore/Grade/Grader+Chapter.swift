import CheckTranscript
import Foundation
import Synchronization

// Grading one chapter from a build: its run, and, when that run did not
// finish, each check alone (see ``Grader``).
extension Grader {
  /// Every check `build` holds, listed without running any.
  package func listChecks(_ build: Build) throws -> [ExpectedCheck] {
    try TestRun(build: build, environment: Self.childEnvironment, sandbox: sandbox).listChecks()
  }

  /// Grades one chapter whose build holds `checks`.
  package func grade(
    _ chapter: Curriculum.Chapter, expecting checks: [ExpectedCheck], build: Build
  ) -> ChapterReport {
    guard !checks.isEmpty else {
      return ChapterReport(chapter: chapter)
    }
    let runner = TestRun(build: build, environment: Self.childEnvironment, sandbox: sandbox)
    let names = Dictionary(checks.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    let whole = runner.run(
      filter: "^" + NSRegularExpression.escapedPattern(for: chapter.testModule + "."),
      timeLimit: wholeRunLimit, stalled: wholeRunCap == nil ? nil : Self.stallLimit,
      running: { running, seconds in
        let shown = running.filter { names[$0] != nil }.prefix(2).map { "“\(names[$0] ?? $0)”" }.joined(
          separator: ", ")
        let label = chapter.number == 0 ? chapter.title : chapter.paddedNumber
        progress?(
          shown.isEmpty
            ? words("\(label): starting its checks (\(seconds) s)", "\(label)：正在启动检查（\(seconds) 秒）")
            : words("\(label): still running \(shown) (\(seconds) s)", "\(label)：仍在运行 \(shown)（\(seconds) 秒）")
        )
      })
    // An issue no check owns, or a race report, is pinned on one check by
    // running each check alone.
    if whole.isComplete && whole.summary.unattributedIssues.isEmpty && whole.races.isEmpty {
      var report = ChapterReport(
        chapter: chapter,
        checks: checks.map {
          result(of: $0, in: whole.summary, otherwise: "the run never reported this check")
        })
      decideAgain(&report, build: build)
      return report
    }

    // The run did not finish. A check whose end its sealed stream recorded
    // was decided in it, exactly as in a run that finishes: its result is
    // kept, unless something in the run belongs to no check (an issue
    // recorded outside one, a race) or the stream is void. Every other check
    // runs alone, in course order, each with the same time of its own (see
    // ``aloneLimit(checks:)``): what a check does alone decides its result,
    // not how long the others took or how loaded the machine is.
    var report = ChapterReport(chapter: chapter)
    if whole.timedOut { report.timeLimit = timeLimit }
    if let cause = whole.cause { report.crash = cause }
    let trusted =
      whole.startError == nil && !whole.summary.isTampered && whole.summary.unattributedIssues.isEmpty
      && whole.races.isEmpty
    let decided = checks.filter {
      trusted && whole.summary.ended.contains($0.id) && !whole.summary.cancelled.contains($0.id)
    }
    let kept = Dictionary(
      uniqueKeysWithValues: decided.map {
        ($0.id, result(of: $0, in: whole.summary, otherwise: "the run never reported this check"))
      })
    let alone = checks.filter { kept[$0.id] == nil }
    let limit = aloneLimit(checks: checks.count, sanitized: build.sanitizer == .thread)
    let quiet = aloneQuiet(build)
    let started = Mutex(0)
    let results = concurrentMap(alone, width: aloneWidth(build)) { check -> (CheckResult, Outcome) in
      let number = started.withLock { count in
        count += 1
        return count
      }
      let label = chapter.number == 0 ? chapter.title : chapter.paddedNumber
      progress?(
        words(
          "\(label): running “\(check.name)” on its own (\(number) of \(alone.count))",
          "\(label)：单独运行 “\(check.name)”（第 \(number)/\(alone.count) 项）"))
      let alone = runner.run(
        filter: "^" + NSRegularExpression.escapedPattern(for: check.id) + "$", timeLimit: limit, quiet: quiet)
      if alone.isComplete {
        var checked = result(of: check, in: alone.summary, otherwise: "the run never reported this check")
        // Alone, an issue recorded outside any check is this check's, and
        // so is every race ThreadSanitizer reported.
        if !alone.summary.unattributedIssues.isEmpty, checked.status == .passed || checked.status == .failed {
          checked.status = .failed
          checked.issues += alone.summary.unattributedIssues.map {
            $0.rewording {
              "Recorded outside the check (on another thread or queue, or after it ended):\n" + $0
            }
          }
        }
        if !alone.races.isEmpty, checked.status == .passed || checked.status == .failed {
          checked.status = .failed
          let folders = [workspace.codeFolder(chapter, variant)]
          checked.issues += Self.distinct(alone.races).map {
            var issue = CheckIssue(
              $0.explanation(codeFolders: folders, workspace: workspace),
              codeLocation: $0.learnerLocation(codeFolders: folders, workspace: workspace))
            issue.chinese = $0.explanation(codeFolders: folders, workspace: workspace, .chinese)
            issue.isRace = true
            return issue
          }
        }
        return (checked, .complete)
      }
      if alone.timedOut {
        let stopped =
          alone.stoppedQuiet.map { "it did nothing for \(Self.seconds($0)) and was stopped" }
          ?? "it was stopped after \(Self.seconds(limit))"
        let stoppedChinese =
          alone.stoppedQuiet.map { "它 \(Self.seconds($0)) 没有任何动静，被叫停了" } ?? "运行 \(Self.seconds(limit)) 后被叫停了"
        var issue = CheckIssue("Did not finish: run on its own, \(stopped). " + Stuck.cause)
        issue.chinese = "没有结束：单独运行时，\(stoppedChinese)。" + Stuck.causeInChinese
        return (
          CheckResult(id: check.id, name: check.name, status: .interrupted, issues: [issue]), .timedOut
        )
      }
      let cause = alone.cause ?? "the process ended before this check finished"
      var issue = CheckIssue("The check's process ended: " + cause, runtimeSaid: alone.runtimeSaid)
      issue.chinese = "检查的进程结束了：" + (alone.cause ?? "这项检查完成之前进程就结束了")
      return (
        CheckResult(id: check.id, name: check.name, status: .interrupted, issues: [issue]), .ended(cause)
      )
    }
    let byID = Dictionary(uniqueKeysWithValues: results.map { ($0.0.id, $0.0) })
    report.checks = checks.compactMap { kept[$0.id] ?? byID[$0.id] }
    decideAgain(&report, build: build)
    // The chapter's state follows what the checks did alone.
    report.timeLimit = results.contains { $0.1 == .timedOut } ? limit : nil
    report.crash = results.compactMap { if case .ended(let cause) = $0.1 { cause } else { nil } }.first
    return report
  }

  /// Runs each check of `report` that could not decide (its threads did not
  /// meet: ``CheckResult/Status/undecided``) again, alone, with the kit's
  /// bound four times as long, and keeps what that run decides. One that
  /// still cannot stays undecided: counted neither passed nor failed, since
  /// a busy machine says nothing about the learner's code.
  func decideAgain(_ report: inout ChapterReport, build: Build) {
    let undecided = report.checks.indices.filter { report.checks[$0].status == .undecided }
    guard !undecided.isEmpty else { return }
    var environment = Self.childEnvironment
    let bound = Double(environment["WORKSHOP_HANG_BOUND"] ?? "") ?? 1
    environment["WORKSHOP_HANG_BOUND"] = String(bound * patience)
    let runner = TestRun(build: build, environment: environment, sandbox: sandbox)
    // The kit gives threads twelve bounds to meet.
    let limit = max(timeLimit, 12 * bound * patience + 10)
    let chapter = report.chapter.paddedNumber
    let again = concurrentMap(undecided.map { report.checks[$0] }, width: 1) { check -> CheckResult? in
      progress?(
        words("\(chapter): running “\(check.name)” again with more time", "\(chapter)：放宽时间重跑 “\(check.name)”")
      )
      let alone = runner.run(
        filter: "^" + NSRegularExpression.escapedPattern(for: check.id) + "$", timeLimit: limit)
      guard alone.isComplete, alone.summary.unattributedIssues.isEmpty, alone.races.isEmpty else {
        return nil
      }
      return result(
        of: ExpectedCheck(id: check.id, name: check.name), in: alone.summary,
        otherwise: "the run never reported this check")
    }
    for (index, result) in zip(undecided, again) {
      if let result { report.checks[index] = result }
    }
  }

  /// How many times longer the kit waits when an undecided check runs
  /// again, unless the grader says otherwise (``Grader/patience``).
  package static let defaultPatience: Double = 4

  /// The time a chapter's whole run gets before its checks run alone: half
  /// the chapter's limit, and never more than ``wholeRunCap`` when set. A run that
  /// takes longer decides nothing by itself (its checks then run alone and
  /// give the same results), so a short wait costs no verdict, while a
  /// check that spins is named in seconds, not half a minute.
  var wholeRunLimit: Double { min(timeLimit / 2, wholeRunCap ?? .infinity) }

  /// A chapter's checks take well under a second each when nothing spins:
  /// its whole run, on a busy 2-core machine, a few seconds.
  package static let chapterWholeRunCap: Double = 6

  /// How long a chapter's whole run may say nothing while checks are
  /// running before it is stopped as stuck (with ``wholeRunCap``): checks
  /// that finish say something many times a second.
  package static let stallLimit: Double = 2

  /// How many checks of a chapter whose run did not finish run alone at
  /// once. A check that hangs mostly waits (a continuation never resumed, a
  /// lock) and takes no core; one that spins takes one until it is stopped.
  /// Twelve at once (a chapter has about that many checks), or one per core
  /// if there are more, keep the answer within seconds, while a check that
  /// does finish still gets, among eleven spinning ones on two cores, a
  /// sixth of a core: several times what it needs (a fraction of a second
  /// to start, milliseconds to run) within its ``aloneLimit(checks:)``.
  /// Under ThreadSanitizer, which makes code several times slower, one per
  /// core.
  func aloneWidth(_ build: Build) -> Int {
    let cores = max(2, ProcessInfo.processInfo.activeProcessorCount)
    return build.sanitizer == .thread ? cores : max(12, cores)
  }

  /// How long a check run alone that beats (``Heartbeat``) may say nothing
  /// before it is stopped as stuck: ``Heartbeat/silentBounds`` hang bounds.
  /// Nil under ThreadSanitizer, which can hold a thread for seconds: there
  /// a check runs to its limit.
  func aloneQuiet(_ build: Build) -> Double? {
    guard build.sanitizer != .thread else { return nil }
    let bound = Double(Self.childEnvironment["WORKSHOP_HANG_BOUND"] ?? "") ?? 1
    return Heartbeat.silentBounds * bound
  }

  /// The time each check of a chapter with `checks` checks gets when it
  /// runs alone: half the chapter's limit shared as if every check hung, two
  /// at a time, and never under the longest a check that finishes can take:
  /// the twelve hang bounds the kit gives two threads to meet
  /// (`SeparateThreads.overlapTimeLimit`) and 3 s to start, that is 15 s,
  /// or 63 s under ThreadSanitizer, whose bound is 5 s (`sanitized`). A
  /// check that finishes, however loaded the machine, finishes in time. It
  /// depends on the chapter alone, not on the machine (its cores,
  /// ``aloneWidth``) nor on how far the whole run got, so a hanging chapter
  /// grades the same everywhere.
  func aloneLimit(checks: Int, sanitized: Bool = false) -> Double {
    let rounds = Double((max(checks, 1) + 1) / 2)
    let bound = Double(Self.childEnvironment["WORKSHOP_HANG_BOUND"] ?? "") ?? 1
    let longest = 12 * (sanitized ? max(bound, 5) : bound) + 3
    return max(longest, (timeLimit / 2) / rounds)
  }

  /// `3 s`, `2.5 s`.
  package static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
  }

  /// Reports of different races: the same pair of places once.
  static func distinct(_ races: [RaceReport]) -> [RaceReport] {
    var seen = Set<String>()
    return races.filter { race in
      let key = race.kind + race.accesses.map { "\($0.verb)@\($0.frames.first?.function ?? "")" }.joined()
      return seen.insert(key).inserted
    }.prefix(3).map { $0 }
  }

  /// How a check's run alone went.
  fileprivate enum Outcome: Equatable {
    case complete, timedOut
    case ended(String)
  }

  /// A check's result from a finished run.
  fileprivate func result(of check: ExpectedCheck, in summary: EventStream.Summary, otherwise: String)
    -> CheckResult
  {
    if summary.cancelled.contains(check.id) {
      return CheckResult(
        id: check.id, name: check.name, status: .interrupted,
        issues: ["The check was cancelled from inside (Test.cancel()), so it never finished."])
    }
    if summary.skipped.contains(check.id) {
      return CheckResult(
        id: check.id, name: check.name, status: .skipped,
        issues: summary.skipReasons[check.id].map { [CheckIssue($0)] } ?? [])
    }
    guard summary.started.contains(check.id), summary.ended.contains(check.id) else {
      return CheckResult(
        id: check.id, name: check.name, status: .interrupted, issues: [CheckIssue(otherwise)])
    }
    let issues = summary.issues[check.id] ?? []
    // Only the kit's own "could not decide" issues: undecided, not failed.
    let undecided = !issues.isEmpty && issues.allSatisfy { $0.verdict?.undecided == true }
    return CheckResult(
      id: check.id, name: check.name, status: issues.isEmpty ? .passed : undecided ? .undecided : .failed,
      issues: issues, seconds: summary.durations[check.id])
  }
}
