import Foundation
import WorkshopCore

/// What class grading keeps between submissions and runs, and what it
/// trusts of it: the starters' results, graded once from the pristine
/// course, and nothing an unsandboxed run could have written.
extension ClassGrader {
  /// Whether a chapter's result can stand for any identical code: every
  /// check finished in its own run, nothing crashed or ran out of time, and
  /// the race check ran if it was due. A crash or a time limit can come
  /// from the machine's load or another job, not from the code alone.
  static func isShareable(_ report: ChapterReport) -> Bool {
    if report.crash != nil || report.timeLimit != nil { return false }
    if report.checks.contains(where: { $0.status == .interrupted }) { return false }
    if case .notRun? = report.raceCheck { return false }
    return true
  }

  /// What identifies a chapter's code: every file's path and text, whole
  /// (a hash that is not collision-resistant could be matched on purpose).
  static func key(_ chapter: Curriculum.Chapter, _ sources: [String: String]) -> String {
    var key = "\(chapter.number)"
    for path in sources.keys.sorted() {
      key += "\u{0}\(path)\u{0}\(sources[path]!.utf8.count)\u{0}\(sources[path]!)"
    }
    return key
  }

  /// Where an unsandboxed grade says it ran: its learners' code ran with the
  /// grader's permissions and could write anything kept in
  /// `.build/workshop-grade` (the starters' builds, their results, the
  /// list of checks).
  var unsandboxedMark: URL { course.url(".build/workshop-grade/unsandboxed-run") }

  /// Before grading: an unsandboxed grade marks the kept state as written
  /// where learner code could reach it; a sandboxed grade that finds the
  /// mark starts from nothing, so no file an unsandboxed run left is taken
  /// for the pristine course's. The mark is written before learner code
  /// runs and again after (see ``grade(_:names:finished:)``), so code that
  /// removes it during the run does not hide the run.
  func distrustStateOfUnsandboxedRuns() throws {
    let folder = course.url(".build/workshop-grade")
    if sandbox == nil {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data().write(to: unsandboxedMark)
    } else if FileManager.default.fileExists(atPath: unsandboxedMark.path) {
      progress?("An unsandboxed grade ran here: starting from the pristine course again")
      try FileManager.default.removeItem(at: folder)
    }
  }

  /// The starters' results, with the course they were graded from.
  struct StartersResults: Codable {
    var course: Fingerprint.Inputs
    /// By ``key(_:_:)`` of the starter's code.
    var byKey: [String: ChapterReport]
  }

  /// Where the starters' results are kept: beside the jobs' copies, never in
  /// a folder a sandboxed build or run can write.
  var startersResultsFile: URL { course.url(".build/workshop-grade/starters-results.json") }

  /// Every chapter's starter, graded once in `slot` holding nothing but the
  /// pristine course and the starters' build folders; kept while the course
  /// is the same. Only results that are facts of the code are kept.
  func startersResults(in slot: GradingCopy, items: Items) throws -> [String: ChapterReport] {
    if let data = try? Data(contentsOf: startersResultsFile),
      let kept = try? JSONDecoder().decode(StartersResults.self, from: data), kept.course == items.course
    {
      return kept.byKey
    }
    progress?("Grading the starters")
    try slot.syncCourse()
    try slot.restoreBuilds()
    var keys: [Int: String] = [:]
    for chapter in course.curriculum.chapters {
      let sources = try slot.starter(of: chapter)
      keys[chapter.number] = Self.key(chapter, sources)
      try slot.place(chapter, sources: sources)
    }
    var byKey: [String: ChapterReport] = [:]
    for report in try grader(for: slot).grade(course.curriculum.chapters) where Self.isShareable(report) {
      if let key = keys[report.chapter.number] { byKey[key] = report }
    }
    try? JSONEncoder().encode(StartersResults(course: items.course, byKey: byKey))
      .write(to: startersResultsFile, options: .atomic)
    return byKey
  }
}
