import Foundation
import WorkshopCore

/// Every chapter's checks against the course's own wrong and right fixes
/// (`Mutations/NN-Name/*.mutation`): a check is only as good as the wrong
/// fixes it rejects and the right ones it accepts.
extension Verifier {
  /// The fewest wrong and right fixes a chapter keeps.
  static let minimumMutations = (wrong: 8, right: 2)

  /// The folder of a chapter's mutations.
  static func mutationsFolder(_ chapter: Curriculum.Chapter) -> String {
    "Mutations/\(chapter.folder)"
  }

  /// A chapter's mutations, sorted by name, or why they cannot be read.
  func mutations(of chapter: Curriculum.Chapter) -> Result<[Mutation], CurriculumError> {
    do {
      return .success(try Mutation.load(from: workspace.url(Self.mutationsFolder(chapter))))
    } catch let error as CurriculumError {
      return .failure(error)
    } catch {
      return .failure(CurriculumError(description: "\(Self.mutationsFolder(chapter)): \(error)"))
    }
  }

  /// Grades every chapter's wrong and right fixes in copies of the course,
  /// one fix per chapter of a copy at a time, and counts each as an item.
  ///
  /// - Parameter whenACopyIsDone: called when a copy of the course has
  ///   graded all its fixes, while the other may still be grading.
  func checkMutations(
    _ tally: Tally, chapters: [Curriculum.Chapter], whenACopyIsDone: @escaping @Sendable () -> Void = {}
  ) {
    var lists: [Int: [Mutation]] = [:]
    var blindSpots: [Int: [Mutation]] = [:]
    for chapter in chapters {
      switch mutations(of: chapter) {
      case .success(let all):
        let graded = all.filter { $0.kind != .uncaught }
        let solution =
          (try? GradingCopy.swiftSources(in: workspace.url(workspace.codeFolder(chapter, .solutions))))
        let list = solution.map { Self.buildOrder(graded, solution: $0) } ?? graded
        lists[chapter.number] = list
        blindSpots[chapter.number] = all.filter { $0.kind == .uncaught }
        let wrong = list.filter { $0.kind == .wrong }.count
        let right = list.count - wrong
        tally.item(
          wrong >= Self.minimumMutations.wrong && right >= Self.minimumMutations.right,
          "\(chapter.paddedNumber) \(chapter.title): \(wrong) wrong and \(right) right fixes in \(Self.mutationsFolder(chapter))",
          [
            "at least \(Self.minimumMutations.wrong) wrong and \(Self.minimumMutations.right) right fixes are needed"
          ],
          quiet: true)
      case .failure(let error):
        tally.item(false, "\(chapter.paddedNumber) \(chapter.title): mutations", [error.description])
      }
    }
    // Two copies side by side: the race-checked chapters in one, the others
    // in the other. A round's build keeps both cores busy; its checks, its
    // ThreadSanitizer pass and chapter 13's versions mostly wait (on gates,
    // on hang guards, on processes starting), and the other copy's build
    // fills that time. Each copy builds only its own chapters.
    let lanes = Self.lanes(chapters)
    var copies: [GradingCopy] = []
    do {
      for index in lanes.indices {
        copies.append(try mutationWorkspace(at: Self.mutationsCopy(index)))
      }
    } catch {
      tally.item(false, "a copy of the course to apply fixes in", ["\(error)"])
      return
    }
    let (timeLimit, progress, repeatCount, all, ordered) = (
      self.timeLimit, self.progress, self.repeatCount, workspace.curriculum.chapters, lists
    )
    let laneResults = concurrentMap(Array(zip(lanes, copies)), width: lanes.count) { lane, copy in
      var grader = Grader(workspace: copy.copy, variant: .chapters, timeLimit: timeLimit, progress: progress)
      grader.patience = Self.patience
      grader.leftOut = Set(all.map(\.number)).subtracting(lane.map(\.number))
      let label =
        lanes.count == 1 ? "Fixes" : "Fixes of chapters \(lane.map(\.paddedNumber).joined(separator: ", "))"
      let results = Self.gradeFixes(
        lane, lists: ordered, in: copy, grader: grader, label: label, repeatCount: repeatCount,
        progress: progress)
      whenACopyIsDone()
      return results
    }
    var results: [Int: [(Mutation, Outcome)]] = [:]
    var varying: [Int: [String]] = [:]
    for lane in laneResults {
      results.merge(lane.results) { $0 + $1 }
      varying.merge(lane.varying) { $0 + $1 }
    }
    report(results, blindSpots: blindSpots, varying: varying, chapters: chapters, tally)
  }

  /// What grading one copy's fixes gave, by chapter number.
  struct FixResults: Sendable {
    var results: [Int: [(Mutation, Outcome)]]
    var varying: [Int: [String]]
  }

  /// The chapters graded side by side, each group in a copy of its own: the
  /// race-checked chapters, and the others.
  static func lanes(_ chapters: [Curriculum.Chapter]) -> [[Curriculum.Chapter]] {
    [chapters.filter { !$0.raceChecked }, chapters.filter(\.raceChecked)].filter { !$0.isEmpty }
  }

  /// Where the copy for lane `index` is kept, relative to the course's root.
  static func mutationsCopy(_ index: Int) -> String {
    index == 0 ? ".build/workshop-mutations" : ".build/workshop-mutations-\(index + 1)"
  }

  /// Grades `chapters`' fixes in `copy`, one fix per chapter a round.
  static func gradeFixes(
    _ chapters: [Curriculum.Chapter], lists: [Int: [Mutation]], in copy: GradingCopy, grader: Grader,
    label: String, repeatCount: Int, progress: (@Sendable (String) -> Void)?
  ) -> FixResults {
    let rounds = chapters.compactMap { lists[$0.number]?.count }.max() ?? 0
    var results: [Int: [(Mutation, Outcome)]] = [:]
    var varying: [Int: [String]] = [:]
    // Fixes some of whose plain runs failed while the others passed and went
    // on to the race pass, by chapter and place in `results`: what a failing
    // run gave, to hold against the race pass's verdict.
    var plainFailures: [Int: [Int: String]] = [:]
    // The rounds run the plain checks only; the fixes that pass them in a
    // race-checked chapter go through ThreadSanitizer afterwards, a few
    // rounds for all of them (see ``gradeRaces``), not a build per round.
    var grader = grader
    grader.racePass = .deferred
    // Only the chapters' own files change from one round to the next: their
    // modules are compiled with the jobs SwiftPM planned, without SwiftPM
    // or a driver per module (half of a round's time).
    grader.rebuildsWithoutSwiftPM = true
    for round in 0..<rounds {
      progress?("\(label), round \(round + 1) of \(rounds)")
      var graded: [Curriculum.Chapter] = []
      for chapter in chapters {
        guard let list = lists[chapter.number], round < list.count else {
          // A chapter whose fixes are all graded keeps its last one in
          // place, ungraded, while it builds: putting the solution back
          // would compile its checks again whenever the last fix changed
          // its interface. One that did not compile gives way to the solution.
          if case .graded(let report)? = results[chapter.number]?.last?.1, report.compileErrors.isEmpty {
            continue
          }
          try? Self.place(solutionOf: chapter, in: copy, applying: nil)
          continue
        }
        do {
          try Self.place(solutionOf: chapter, in: copy, applying: list[round])
          graded.append(chapter)
        } catch {
          results[chapter.number, default: []].append((list[round], .unusable("cannot be applied: \(error)")))
          try? Self.place(solutionOf: chapter, in: copy, applying: nil)
        }
      }
      guard !graded.isEmpty else { continue }
      do {
        // One build per round, its checks run `repeatCount` times: a fix
        // must be caught (or accepted) the same way every time.
        let build = try grader.build()
        let runs = try repeatedRuns(
          grader, graded, build: build, label: "\(label.lowercased()), round \(round + 1) of \(rounds)",
          repeatCount: repeatCount, progress: progress)
        for (index, first) in runs[0].enumerated() {
          let mutation = lists[first.chapter.number]![round]
          // A run that could not decide agrees with any other: the fix's
          // verdict is a decided run's, or undecided when none decided.
          let stands = Self.representative(of: runs.map { $0[index] })
          let report = runs[stands][index]
          switch Self.agreement(of: runs.map { $0[index] }) {
          case .agree(let varies):
            results[report.chapter.number, default: []].append((mutation, .graded(report)))
            if varies { varying[report.chapter.number, default: []].append(mutation.name) }
          case .awaitRacePass(let passing, let failing):
            results[report.chapter.number, default: []].append((mutation, .graded(runs[passing][index])))
            plainFailures[report.chapter.number, default: [:]][results[report.chapter.number]!.count - 1] =
              "run \(failing + 1) \(Self.failsACheck) (\(runs[failing][index].signature))"
          case .disagree(let run):
            results[report.chapter.number, default: []].append(
              (
                mutation,
                .unusable(
                  "not the same verdict in \(runs.count) runs: run \(stands + 1) \(Self.verdict(report)) (\(report.signature)); run \(run + 1) \(Self.verdict(runs[run][index])) (\(runs[run][index].signature))"
                )
              ))
          }
        }
      } catch {
        for chapter in graded {
          results[chapter.number, default: []].append(
            (lists[chapter.number]![round], .unusable("cannot be graded: \(error)")))
        }
      }
    }
    gradeRaces(
      of: &results, chapters: chapters, in: copy, grader: grader, label: label, repeatCount: repeatCount,
      progress: progress)
    for (chapter, failures) in plainFailures {
      for (index, failure) in failures {
        guard case .graded(let report) = results[chapter]![index].1 else { continue }
        // A race pass that could not decide leaves the fix undecided.
        if Self.isUndecided(report) { continue }
        guard Self.verdict(report) != Self.failsACheck else {
          varying[chapter, default: []].append(results[chapter]![index].0.name)
          continue
        }
        results[chapter]![index].1 = .unusable(
          "not the same verdict in \(repeatCount) runs: \(failure); the others pass their plain checks and \(Self.verdict(report)) under ThreadSanitizer (\(report.signature))"
        )
      }
    }
    for chapter in chapters {
      try? Self.place(solutionOf: chapter, in: copy, applying: nil)
    }
    return FixResults(results: results, varying: varying)
  }

  /// A fix's verdict, which must be the same in every run: whether it
  /// passes every check (TSan included), fails one, or does not compile.
  static func verdict(_ report: ChapterReport) -> String {
    if !report.compileErrors.isEmpty { return "does not compile" }
    if isUndecided(report) { return couldNotDecide }
    return report.state == .done ? "passes every check" : failsACheck
  }

  /// The verdict of a run whose only checks that did not pass could not
  /// decide: it agrees with any other run's.
  static let couldNotDecide = "could not decide"

  /// Whether every check of `report` that did not pass could not decide
  /// (the machine was too busy for its threads to meet, even run again
  /// alone): it neither passes nor fails the fix.
  static func isUndecided(_ report: ChapterReport) -> Bool {
    report.compileErrors.isEmpty && report.crash == nil && report.timeLimit == nil
      && !report.failing.isEmpty && report.failing.allSatisfy { $0.status == .undecided }
  }

  /// The index of the run of `runs` whose verdict stands for them all: the
  /// first that decided, or the first when none did.
  static func representative(of runs: [ChapterReport]) -> Int {
    runs.firstIndex { !isUndecided($0) } ?? 0
  }

  /// How the plain runs of one fix agree.
  enum Agreement: Equatable {
    /// Every run gives the same verdict; `varies` if which checks fail differs.
    case agree(varies: Bool)
    /// Run `failing` fails a check; run `passing` (and every other that does
    /// not fail) passes its plain checks in a race-checked chapter and waits
    /// for the race pass, which must fail it too.
    case awaitRacePass(passing: Int, failing: Int)
    /// Run `run` gives another verdict than the first.
    case disagree(run: Int)
  }

  /// How `runs`, the reports of one fix's plain checks run again and again,
  /// agree. What must not change is the verdict: caught or not, accepted or
  /// not. Which checks fail may: a fix that races, or keeps state in a
  /// global that couples checks running side by side, trips different checks
  /// depending on timing. That is noted, not failed. And a race-checked
  /// chapter's run that passes its plain checks has no verdict yet: its
  /// ThreadSanitizer pass gives it. A fix that races can crash in some plain
  /// runs and pass in the others; it is caught the same way in all of them
  /// when the race pass then fails it.
  ///
  /// A run that could not decide is left out: it agrees with every other.
  static func agreement(of runs: [ChapterReport]) -> Agreement {
    let considered = runs.indices.filter { !isUndecided(runs[$0]) }
    guard let firstIndex = considered.first else { return .agree(varies: false) }
    let first = runs[firstIndex]
    let pending = considered.filter { awaitsRacePass(runs[$0]) }
    let decided = considered.filter { !pending.contains($0) }
    if let passing = pending.first, let failing = decided.first,
      decided.allSatisfy({ verdict(runs[$0]) == failsACheck })
    {
      return .awaitRacePass(passing: passing, failing: failing)
    }
    if let run = considered.first(where: { verdict(runs[$0]) != verdict(first) }) {
      return .disagree(run: run)
    }
    return .agree(varies: considered.contains { runs[$0].signature != first.signature })
  }

  /// The verdict of a fix that is caught.
  static let failsACheck = "fails a check"

  /// Whether `report`, from a round of plain checks, passes them in a
  /// race-checked chapter: its verdict is the race pass's, still to come.
  static func awaitsRacePass(_ report: ChapterReport) -> Bool {
    report.chapter.raceChecked && report.compileErrors.isEmpty && report.state == .done
  }

  /// What grading one mutation gave.
  package enum Outcome {
    case graded(ChapterReport)
    /// It could not be applied or graded; why.
    case unusable(String)
  }

  /// A copy of the course's checks and kit under `.build`, kept between
  /// runs so that each round rebuilds only the chapters that changed, with
  /// every chapter's solution in place.
  func mutationWorkspace(at folder: String) throws -> GradingCopy {
    let copy = try GradingCopy(of: workspace, at: workspace.url(folder))
    for chapter in workspace.curriculum.chapters {
      try Self.place(solutionOf: chapter, in: copy, applying: nil)
    }
    return copy
  }

  /// Writes the chapter's solution, with `mutation` applied, as the copy's
  /// chapter; a file is written only when its content changes.
  static func place(
    solutionOf chapter: Curriculum.Chapter, in copy: GradingCopy, applying mutation: Mutation?
  )
    throws
  {
    var sources = try copy.solution(of: chapter)
    if let mutation { sources = try mutation.apply(to: sources) }
    try copy.place(chapter, sources: sources)
  }
}
