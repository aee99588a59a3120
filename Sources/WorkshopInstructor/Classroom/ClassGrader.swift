import Foundation
import Synchronization
import WorkshopCore

/// What grading one submission gave.
struct SubmissionGrade: Sendable {
  /// The name reports use (unique in the class).
  var name: String
  /// What the instructor gave.
  var source: String
  /// Every chapter's report, in course order; empty when not graded.
  var reports: [ChapterReport]
  /// Why the submission could not be graded, if it could not.
  var notGraded: String?
  /// What the submission held that was not taken.
  var ignored: [String]
  /// What a person should look at.
  var flags: [ReviewScan.Flag]
  /// Wall-clock time spent on it, in seconds.
  var seconds: Double
  /// Chapters whose code was the course's starter, byte for byte: given
  /// the starter's result, graded once from the pristine course.
  var reused: Int
}

/// Grades a class: every submission against the pristine checkout's checks,
/// `jobs` at a time, each in a copy of the course of its own.
///
/// Each job owns a `GradingCopy` (WorkshopCore) under `.build/workshop-grade/<job>`, kept
/// between runs, with every starter built once and those build folders kept
/// aside: each submission's build starts from them, never from what an
/// earlier submission's build wrote, and rebuilds only its own chapters.
///
/// No result crosses submissions. The only results shared are the ones
/// pristine inputs produced: each chapter's starter, graded once in a copy
/// holding nothing but the course as it ships. A chapter whose code is its
/// starter, byte for byte, gets that result (grading is deterministic, and
/// a chapter's grade depends on its own code and the course only); any
/// other code is graded in its own submission, even when another submission
/// handed in the same bytes, since what a build or a run of that other
/// submission saw could have been steered by its other chapters.
struct ClassGrader: Sendable {
  /// The instructor's pristine checkout.
  var course: Workspace
  /// How many submissions are graded at the same time.
  var jobs: Int
  /// The time limit of one chapter's grading, in seconds.
  var timeLimit: Double
  /// The sandbox checks and archives run in; nil only when the instructor
  /// chose to grade unsandboxed.
  var sandbox: Sandbox?
  /// Short progress lines for a terminal's status line.
  var progress: (@Sendable (String) -> Void)?

  init(
    course: Workspace, jobs: Int, timeLimit: Double, sandbox: Sandbox?,
    progress: (@Sendable (String) -> Void)? = nil
  ) {
    self.course = course
    self.jobs = max(1, jobs)
    self.timeLimit = timeLimit
    self.sandbox = sandbox
    self.progress = progress
  }

  /// The folder of job `index`'s copy of the course.
  func slotFolder(_ index: Int) -> URL {
    course.url(".build/workshop-grade/\(index)")
  }

  /// What every submission is graded on, chapter by chapter: the checks of
  /// the pristine course, listed from a build of its starters.
  struct Items: Sendable, Codable {
    var byChapter: [Int: [ExpectedCheck]]
    /// The course's files these were listed from (see `Fingerprint.ofCourse(_:)` in WorkshopCore).
    var course: Fingerprint.Inputs = [:]
  }

  /// Where the last list of items is kept, with the course it came from.
  var itemsFile: URL { course.url(".build/workshop-grade/items.json") }

  /// Grades `paths`, calling `finished` as each submission is done (from any
  /// thread, one at a time); returns the grades in the order given.
  func grade(
    _ paths: [String], names: [String], finished: @escaping (SubmissionGrade, Items) -> Void
  ) throws -> (grades: [SubmissionGrade], items: Items) {
    // Called under `report`'s lock only, so never twice at once.
    nonisolated(unsafe) let finished = finished
    let slotCount = min(jobs, paths.count)
    try distrustStateOfUnsandboxedRuns()
    let slots = try (0..<slotCount).map { try GradingCopy(of: course, at: slotFolder($0)) }
    // What no learner's code may read (the course's own secrets, the other
    // jobs' copies, every submission in any form) is outside the job's copy,
    // the one folder of the course its sandbox shows (`Sandbox.wrap`).
    let items = try listItems(in: slots[0])
    for (index, slot) in slots.enumerated() where !slot.hasBuilds(of: items.course) {
      try buildStarters(in: slot, job: index, course: items.course)
    }
    let tampered = Mutex<String?>(nil)
    // Unsandboxed, learner code can write where the grader keeps them.
    let starters = sandbox == nil ? [:] : try startersResults(in: slots[0], items: items)
    let done = Mutex(0)
    let results = Mutex<[Int: SubmissionGrade]>([:])
    let report = Mutex(())
    // A submission with a check that could not decide (its threads did
    // not meet on a busy machine) is reported after the class, once those
    // chapters were graded again with more time on a machine no longer busy
    // grading the others.
    let later = Mutex<[Int]>([])
    let shown = Mutex<Set<Int>>([])
    let show = { @Sendable (index: Int, grade: SubmissionGrade) in
      results.withLock { $0[index] = grade }
      shown.withLock { _ = $0.insert(index) }
      let count = done.withLock { value in
        value += 1
        return value
      }
      report.withLock { _ in finished(grade, items) }
      progress?("Graded \(count) of \(paths.count) submissions")
    }
    let guarded = { @Sendable (index: Int, grading: () -> SubmissionGrade) -> SubmissionGrade in
      if let changed = tampered.withLock({ $0 }) ?? courseChange(since: items.course) {
        // Unsandboxed, code under test can write the pristine checkout:
        // nothing graded after that is a grade.
        tampered.withLock { $0 = changed }
        return SubmissionGrade(
          name: names[index], source: paths[index], reports: [], notGraded: changed, ignored: [],
          flags: [], seconds: 0, reused: 0)
      }
      var grade = grading()
      // Checked again after: a grade made while the checks changed is none.
      if let changed = courseChange(since: items.course) {
        tampered.withLock { $0 = changed }
        grade.notGraded = grade.notGraded ?? changed
        grade.reports = []
      }
      return grade
    }
    Self.work(paths.indices.map { $0 }, slots: slots) { index, slot, slotIndex in
      let grade = guarded(index) {
        gradeOne(
          paths[index], name: names[index], in: slot, job: slotIndex, items: items, starters: starters)
      }
      if grade.notGraded == nil, !Self.undecidedChapters(grade).isEmpty {
        results.withLock { $0[index] = grade }
        later.withLock { $0.append(index) }
      } else {
        show(index, grade)
      }
    }
    let again = later.withLock { $0 }.sorted()
    if !again.isEmpty {
      progress?(
        "Grading again, with more time, the chapters of \(again.count) submission\(again.count == 1 ? "" : "s")"
          + " whose checks could not decide")
    }
    Self.work(again, slots: slots) { index, slot, slotIndex in
      let first = results.withLock { $0[index]! }
      let second = guarded(index) {
        gradeOne(
          paths[index], name: names[index], in: slot, job: slotIndex, items: items, starters: starters,
          only: Self.undecidedChapters(first), patience: Self.afterClassPatience)
      }
      show(index, Self.deciding(first, with: second))
    }
    // Stopped before the second pass was over: the first grades, as they are.
    for index in again where !shown.withLock({ $0.contains(index) }) {
      show(index, results.withLock { $0[index]! })
    }
    if sandbox == nil { try? Data().write(to: unsandboxedMark) }
    let all = results.withLock { $0 }
    return (paths.indices.compactMap { all[$0] }, items)
  }

  /// Why the pristine course can no longer be trusted, if its checks, kit or
  /// manifests changed since `fingerprint` was taken.
  func courseChange(since fingerprint: Fingerprint.Inputs) -> String? {
    let changed = Fingerprint.changes(since: fingerprint, in: course)
    guard let first = changed.first else { return nil }
    return
      "the course's own files changed while the class was graded (\(first)\(changed.count > 1 ? " and \(changed.count - 1) more" : "")): no grade after that counts. Restore them and grade again\(sandbox == nil ? ", in the sandbox" : "")."
  }

  /// The checks of every chapter, from a build of the starters (the
  /// solution of a chapter whose starter does not build).
  func listItems(in slot: GradingCopy) throws -> Items {
    let fingerprint = Fingerprint.ofCourse(course)
    if let data = try? Data(contentsOf: itemsFile),
      let items = try? JSONDecoder().decode(Items.self, from: data),
      items.course == fingerprint
    {
      return items
    }
    progress?("Building the course's checks")
    for chapter in course.curriculum.chapters {
      try slot.place(chapter, sources: try slot.starter(of: chapter))
    }
    var build = try grader(for: slot).build()
    if !build.brokenChapters.isEmpty {
      for chapter in course.curriculum.chapters where build.brokenChapters[chapter.number] != nil {
        try slot.place(chapter, sources: try slot.solution(of: chapter))
      }
      build = try grader(for: slot).build()
    }
    let grader = grader(for: slot)
    let listed = try TestRun(build: build, environment: Grader.childEnvironment, sandbox: grader.sandbox)
      .listChecks()
    var byChapter: [Int: [ExpectedCheck]] = [:]
    for chapter in course.curriculum.chapters {
      if chapter.writesChecks {
        byChapter[chapter.number] = try grader.gradedItems(of: chapter)
      } else {
        guard build.brokenChapters[chapter.number] == nil else {
          throw GradingError(
            description:
              "chapter \(chapter.paddedNumber)'s checks do not build with its starter or its solution: run 'swift run workshop verify'"
          )
        }
        byChapter[chapter.number] = listed.filter { $0.id.hasPrefix(chapter.testModule + ".") }
      }
    }
    let items = Items(byChapter: byChapter, course: fingerprint)
    try? JSONEncoder().encode(items).write(to: itemsFile, options: .atomic)
    return items
  }

  /// Builds every starter in `slot`, plain and with ThreadSanitizer, and
  /// keeps the build folders: each submission's build starts from them.
  func buildStarters(in slot: GradingCopy, job: Int, course: Fingerprint.Inputs) throws {
    progress?("Building the starters (job \(job + 1))")
    try slot.restoreBuilds()
    for chapter in self.course.curriculum.chapters {
      try slot.place(chapter, sources: try slot.starter(of: chapter))
    }
    let grader = grader(for: slot, job: job)
    _ = try grader.build()
    if self.course.curriculum.chapters.contains(where: \.raceChecked) { _ = try grader.raceBuild() }
    // Grading the chapters whose checks learners write builds the versions
    // of their components, in build folders of their own.
    let checksChapters = self.course.curriculum.chapters.filter(\.writesChecks)
    if !checksChapters.isEmpty { _ = try grader.grade(checksChapters) }
    try slot.saveBuilds(of: course)
  }

  func grader(for slot: GradingCopy, job: Int = 0, deadline: ContinuousClock.Instant? = nil) -> Grader {
    var sandbox = self.sandbox
    sandbox?.user = Sandbox.nobody - 1 - job
    sandbox?.deadline = deadline
    return Grader(
      workspace: slot.copy, variant: .chapters, timeLimit: timeLimit,
      isolation: sandbox.map { .sandbox($0) } ?? .none)
  }

  /// Grades one submission in `slot`, which every chapter it does not
  /// grade holds as the course shipped it: nothing of an earlier submission
  /// is built beside this one's.
  ///
  /// With `only`, only those of its chapters are graded (the others are
  /// built as their starters and not reported), and an undecided check gets
  /// `patience` times the kit's bound when it runs again.
  private func gradeOne(
    _ path: String, name: String, in slot: GradingCopy, job: Int, items: Items,
    starters: [String: ChapterReport], only: Set<Int>? = nil, patience: Double = Grader.defaultPatience
  ) -> SubmissionGrade {
    let start = ContinuousClock.now
    let deadline = start + .seconds(budget)
    var grade = SubmissionGrade(
      name: name, source: path, reports: [], notGraded: nil, ignored: [], flags: [], seconds: 0, reused: 0)
    do {
      let submission = try Submission.load(path, course: course, sandbox: sandbox)
      grade.ignored = submission.ignored
      grade.flags = submission.flags
      try slot.syncCourse()
      var known: [Int: ChapterReport] = [:]
      var toGrade: [Curriculum.Chapter] = []
      // The copy starts from what no learner wrote: the pristine course,
      // and the build folders as the starters left them.
      try slot.restoreBuilds()
      for chapter in course.curriculum.chapters where only?.contains(chapter.number) ?? true {
        guard let sources = submission.chapters[chapter.number] else {
          var report = ChapterReport(chapter: chapter)
          report.notHandedIn = true
          known[chapter.number] = report
          continue
        }
        if let report = starters[Self.key(chapter, sources)] {
          known[chapter.number] = report
          grade.reused += 1
          continue
        }
        try slot.place(chapter, sources: sources)
        toGrade.append(chapter)
      }
      // A chapter not handed in, given the starter's result, or not graded
      // now, gets the shipped starter, never what an earlier submission left.
      for chapter in course.curriculum.chapters
      where !toGrade.contains(where: { $0.number == chapter.number }) {
        try slot.place(chapter, sources: try slot.starter(of: chapter))
      }
      for pass in Self.passes(toGrade) {
        for chapter in pass.startersInBuild {
          try slot.place(chapter, sources: try slot.starter(of: chapter))
        }
        for chapter in pass.graded {
          try slot.place(chapter, sources: submission.chapters[chapter.number] ?? [:])
        }
        var grader = grader(for: slot, job: job, deadline: deadline)
        grader.patience = patience
        for report in try grader.grade(pass.graded) {
          known[report.chapter.number] = report
        }
      }
      grade.reports = course.curriculum.chapters.compactMap { known[$0.number] }
    } catch is Sandbox.BudgetSpent {
      grade.notGraded = Self.budgetSpent(budget)
    } catch {
      grade.notGraded = "\(error)"
    }
    if grade.notGraded == nil, sandbox != nil, ContinuousClock.now >= deadline {
      // What ran past the budget was stopped: its chapters' results say
      // so as time limits; the instructor sees why.
      grade.flags.append(
        ReviewScan.Flag(location: "(whole submission)", reason: Self.budgetSpent(budget), code: ""))
    }
    grade.seconds = (ContinuousClock.now - start).inSeconds
    return grade
  }

  /// The most time, in seconds, that building and running one submission's
  /// code may take, in the sandbox: its chapters' own time limits add up to
  /// far less, but what a submission makes the grader do (builds stopped at
  /// a limit and done again, checks that hang alone, the race pass, the
  /// versions chapter 13's checks run against) must end too.
  var budget: Double = 15 * 60

  /// What the report says of a submission that used all of ``budget``.
  static func budgetSpent(_ budget: Double) -> String {
    "stopped when it had used its time budget (\(Int(budget)) s): building and checking it took longer"
  }

  /// One build and grading of a submission's chapters: which are graded,
  /// and which of the submission's chapters the build holds as starters.
  struct Pass: Equatable {
    var graded: [Curriculum.Chapter]
    var startersInBuild: [Curriculum.Chapter]
  }

  /// How `chapters` (the submission's chapters to grade) are graded. A
  /// chapter whose checks the learner writes is test code: Swift Testing
  /// runs its traits' initializers as it finds the checks, in every process
  /// of the test product. So the other chapters are graded in a build that
  /// holds its starter, and it is graded in a build of its own.
  static func passes(_ chapters: [Curriculum.Chapter]) -> [Pass] {
    let checksChapters = chapters.filter(\.writesChecks)
    let others = chapters.filter { !$0.writesChecks }
    var passes: [Pass] = []
    if !others.isEmpty { passes.append(Pass(graded: others, startersInBuild: checksChapters)) }
    if !checksChapters.isEmpty { passes.append(Pass(graded: checksChapters, startersInBuild: [])) }
    return passes
  }
}
