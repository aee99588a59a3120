import Foundation

/// The ThreadSanitizer pass of race-checked chapters.
extension Grader {
  /// Runs again, under ThreadSanitizer, the checks of every race-checked
  /// chapter whose checks all pass, and folds what it finds into the reports.
  ///
  /// It waits for the plain checks: instrumented code builds and runs several
  /// times slower, and a chapter whose checks fail is not done either way.
  ///
  /// `prebuilt` is an up-to-date ThreadSanitizer build, if the caller has one.
  package func raceCheck(_ reports: [ChapterReport], build prebuilt: Build? = nil) -> [ChapterReport] {
    var reports = reports
    let ready = reports.indices.filter { racesReady(reports[$0]) }
    reports = reports.map(Self.waitingForRaces)
    guard !ready.isEmpty else { return reports }
    // Say what is built, and (when it is the reason) that the plain checks
    // passed: the instrumented build of a chapter takes a while the first time.
    let names = ready.map { reports[$0].chapter.paddedNumber }.joined(separator: ", ")
    let which = "\(ready.count == 1 ? "chapter" : "chapters") \(names)"
    let building = "building \(ready.count == 1 ? "it" : "them") with ThreadSanitizer to check for data races"
    progress?(
      racePass == .whenChecksPass
        ? words(
          "Every check of \(which) passes: \(building)", "第 \(names) 章的检查全部通过：正在用 ThreadSanitizer 构建，检查数据竞争")
        : words(
          "Race pass of \(which), whatever their checks did: \(building)",
          "第 \(names) 章的竞争检查（不论检查结果）：正在用 ThreadSanitizer 构建，检查数据竞争"))
    let build: Build
    let expected: [ExpectedCheck]
    do {
      build = try prebuilt ?? raceBuild(only: ready.map { reports[$0].chapter })
      expected = try TestRun(build: build, environment: Self.childEnvironment, sandbox: sandbox).listChecks()
    } catch {
      let reason = "the ThreadSanitizer build failed: \(firstLine(of: "\(error)"))"
      for index in ready { reports[index].raceCheck = .notRun(reason) }
      return reports
    }
    let candidates = ready.map { reports[$0] }
    let results = concurrentMap(candidates, width: 2) { report -> ChapterReport in
      if let errors = build.brokenChapters[report.chapter.number] {
        var report = report
        report.raceCheck = .notRun(
          "it does not build with ThreadSanitizer: \(firstLine(of: errors.first ?? ""))")
        return report
      }
      let prefix = report.chapter.testModule + "."
      let sanitized = grade(
        report.chapter, expecting: expected.filter { $0.id.hasPrefix(prefix) }, build: build)
      return Self.merge(report, sanitized: sanitized)
    }
    for (index, report) in zip(ready, results) { reports[index] = report }
    return reports
  }

  /// Whether the race pass runs on the chapter of `report`: a race-checked
  /// chapter whose checks pass (or, for ``RacePass/always``, all ran).
  package func racesReady(_ report: ChapterReport) -> Bool {
    guard report.chapter.raceChecked else { return false }
    switch racePass {
    case .whenChecksPass: return report.state == .done
    case .always:
      return report.compileErrors.isEmpty && report.crash == nil && report.timeLimit == nil
        && !report.checks.isEmpty
    case .deferred: return false
    }
  }

  /// `report` as the race pass leaves it until it runs: a race-checked
  /// chapter's race check is waiting.
  static func waitingForRaces(_ report: ChapterReport) -> ChapterReport {
    var report = report
    if report.chapter.raceChecked { report.raceCheck = .waiting }
    return report
  }

  /// A chapter's report with its ThreadSanitizer run folded in: a check that
  /// passed, but failed there, fails, with what ThreadSanitizer found.
  static func merge(_ plain: ChapterReport, sanitized: ChapterReport) -> ChapterReport {
    var report = plain
    let byID = Dictionary(sanitized.checks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var failed = sanitized.checks.isEmpty || sanitized.crash != nil || sanitized.timeLimit != nil
    var pinned = false
    for index in report.checks.indices {
      guard let check = byID[report.checks[index].id] else {
        failed = true
        continue
      }
      guard check.status != .passed, check.status != .skipped else { continue }
      failed = true
      // A check that failed already keeps its own failure.
      guard report.checks[index].status == .passed else { continue }
      pinned = true
      report.checks[index].status = check.status == .interrupted ? .interrupted : .failed
      // Race reports say what they are; anything else that failed only in
      // the instrumented build says where it failed.
      let races = check.issues.filter(\.isRace)
      report.checks[index].issues =
        races.isEmpty
        ? check.issues.map { $0.rewording { "Under ThreadSanitizer (the race-check build):\n" + $0 } } : races
    }
    if failed, !pinned, plain.state == .done {
      // Not one check to pin it on: the whole run went wrong.
      report.raceCheck = .notRun(
        firstLine(of: sanitized.crash ?? "the checks did not finish under ThreadSanitizer"))
    } else {
      report.raceCheck = failed ? .failed : .clean
    }
    return report
  }

}
