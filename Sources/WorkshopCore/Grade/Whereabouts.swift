import Foundation

/// Which chapter the learner is on: the one they edited last that is not
/// done, else the first one not done.
///
/// Grading remembers which chapters were done, and for which code
/// (`.workshop/done.json`), so that `check` and `hint` without a chapter know
/// it without grading everything first.
package struct Whereabouts: Sendable {
  var workspace: Workspace

  package init(workspace: Workspace) {
    self.workspace = workspace
  }

  private var file: URL { workspace.stateDirectory.appendingPathComponent("last-grades.json") }

  /// What the last grading of a chapter found, and for which code.
  package struct LastGrade: Codable, Equatable {
    /// ``Whereabouts/codeKey(_:)`` of the code graded.
    package var code: String
    package var done: Bool
    /// The IDs of the checks that did not pass.
    package var failing: [String]
    /// The files named by the chapter's compiler errors, when it did not compile.
    package var brokenFiles: [String]
  }

  /// A name for a chapter's code as it is now.
  func codeKey(_ chapter: Curriculum.Chapter) -> String {
    let files = Starters(workspace: workspace).current(chapter).filter { $0.key.hasSuffix(".swift") }
    return ContentHash.of(
      Data(files.keys.sorted().map { "\($0)=\(files[$0]!)" }.joined(separator: "\n").utf8))
  }

  /// The last grading of each chapter, by folder.
  func load() -> [String: LastGrade] {
    guard let data = try? Data(contentsOf: file),
      let grades = try? JSONDecoder().decode([String: LastGrade].self, from: data)
    else { return [:] }
    return grades
  }

  /// The code of every chapter as it is now, by folder: read before
  /// grading, so that a save while it runs is not taken for graded code.
  package func codeKeys() -> [String: String] {
    Dictionary(uniqueKeysWithValues: workspace.curriculum.chapters.map { ($0.folder, codeKey($0)) })
  }

  /// Remembers what grading found, for the code read before it (`code`, from ``codeKeys()``).
  package func remember(_ reports: [ChapterReport], code: [String: String]) {
    var grades = load()
    for report in reports {
      grades[report.chapter.folder] = LastGrade(
        code: code[report.chapter.folder] ?? "", done: report.state == .done,
        failing: report.failing.map(\.id),
        brokenFiles: report.compileErrors.flatMap { Diagnostics.compilerErrors(in: $0).map(\.path) })
    }
    try? FileManager.default.createDirectory(at: workspace.stateDirectory, withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try? encoder.encode(grades).write(to: file, options: .atomic)
  }

  /// The last grading of a chapter, if its code has not changed since.
  package func lastGrade(_ chapter: Curriculum.Chapter) -> LastGrade? {
    guard let grade = load()[chapter.folder], grade.code == codeKey(chapter) else { return nil }
    return grade
  }

  /// Whether a chapter was last graded done with the code it has now.
  package func isKnownDone(_ chapter: Curriculum.Chapter) -> Bool {
    lastGrade(chapter)?.done == true
  }

  /// The chapter done with its code as it is that the learner edited last:
  /// the one whose solution they most likely want to see.
  package func lastDone() -> Curriculum.Chapter? {
    let starters = Starters(workspace: workspace)
    return workspace.curriculum.chapters.filter { isKnownDone($0) }
      .max { (starters.lastEdit($0) ?? .distantPast) < (starters.lastEdit($1) ?? .distantPast) }
  }

  /// The chapter the learner is on, from the reports of a grading of every chapter.
  package func current(_ reports: [ChapterReport]) -> ChapterReport? {
    let open = reports.filter { $0.state != .done }
    let starters = Starters(workspace: workspace)
    let edited = open.filter { starters.isEdited($0.chapter) }
      .compactMap { report in starters.lastEdit(report.chapter).map { (report, $0) } }
    return edited.max { $0.1 < $1.1 }?.0 ?? open.first
  }

  /// The chapter the learner is on, without grading: the one edited last
  /// that was not graded done with its code as it is, else the first such one.
  func current() -> Curriculum.Chapter? {
    let starters = Starters(workspace: workspace)
    let open = workspace.curriculum.chapters.filter { !isKnownDone($0) }
    let edited = open.filter { starters.isEdited($0) }.compactMap { chapter in
      starters.lastEdit(chapter).map { (chapter, $0) }
    }
    return edited.max { $0.1 < $1.1 }?.0 ?? open.first ?? workspace.curriculum.chapters.last
  }
}

/// The checks each chapter had when it last compiled (`.workshop/checks.json`),
/// so that a chapter that does not compile still counts its checks, as
/// failing, in the totals.
package struct KnownChecks: Sendable {
  var workspace: Workspace

  package init(workspace: Workspace) {
    self.workspace = workspace
  }

  private var file: URL { workspace.stateDirectory.appendingPathComponent("checks.json") }

  /// Remembers the checks of the chapters that ran, and gives the chapters
  /// that did not compile their last known checks, none of them passing.
  package func fill(_ reports: [ChapterReport]) -> [ChapterReport] {
    var known =
      (try? Data(contentsOf: file)).flatMap {
        try? JSONDecoder().decode([String: [ExpectedCheck]].self, from: $0)
      }
      ?? [:]
    var changed = false
    let filled = reports.map { report in
      var report = report
      if !report.compileErrors.isEmpty, report.checks.isEmpty, let checks = known[report.chapter.folder] {
        report.checks = checks.map {
          CheckResult(
            id: $0.id, name: $0.name, status: .interrupted, issues: ["Not run: the chapter does not compile."]
          )
        }
      } else if report.compileErrors.isEmpty, !report.checks.isEmpty {
        let checks = report.checks.map { ExpectedCheck(id: $0.id, name: $0.name) }
        if known[report.chapter.folder] != checks {
          known[report.chapter.folder] = checks
          changed = true
        }
      }
      return report
    }
    if changed {
      try? FileManager.default.createDirectory(
        at: workspace.stateDirectory, withIntermediateDirectories: true)
      try? JSONEncoder().encode(known).write(to: file, options: .atomic)
    }
    return filled
  }
}

/// What every grading a learner sees keeps, written once for the table,
/// `check` and `watch`: the new results, for the next run to reuse
/// (``ResultCache``), and, for the learner's own code, what the results
/// say of their progress (``Whereabouts``) with every check they passed
/// before filled in (``KnownChecks``).
///
///     let record = GradingRecord(grader)  // Before grading: what is graded.
///     let reports = record.keep(try grader.grade(chapters))
package struct GradingRecord: Sendable {
  private let grader: Grader
  private let code: [String: String]
  private let inputs: ResultCache.Snapshot

  /// Notes what `grader` is about to grade; take it before grading, so
  /// that an edit saved meanwhile is graded again next time.
  package init(_ grader: Grader) {
    self.grader = grader
    code = Whereabouts(workspace: grader.workspace).codeKeys()
    inputs = ResultCache(grader).snapshot()
  }

  /// The chapters' kept results that still hold for what is graded now,
  /// and the chapters to grade again (see ``ResultCache``).
  package func lookUp(_ chapters: [Curriculum.Chapter]) -> (
    reused: [ChapterReport], stale: [Curriculum.Chapter]
  ) {
    ResultCache(grader).lookUp(chapters, in: inputs)
  }

  /// Keeps `graded`, and returns `shown` (`graded` unless some reports
  /// were reused rather than graded) as the learner sees them.
  package func keep(_ graded: [ChapterReport], showing shown: [ChapterReport]? = nil) -> [ChapterReport] {
    ResultCache(grader).store(graded, gradedFrom: inputs)
    let shown = shown ?? graded
    guard grader.variant == .chapters else { return shown }
    let filled = KnownChecks(workspace: grader.workspace).fill(shown)
    Whereabouts(workspace: grader.workspace).remember(filled, code: code)
    return filled
  }
}
