import WorkshopCore

/// The ThreadSanitizer pass of the fixes of race-checked chapters, after
/// their plain rounds (`gradeFixes`).
extension Verifier {
  /// The race pass of every graded fix that passes the plain checks of a
  /// race-checked chapter, folded into its result: in round `n`, each
  /// chapter's `n`-th such fix is in place, and one ThreadSanitizer build
  /// of the copy's race-checked chapters runs those chapters' checks
  /// `repeatCount` times.
  static func gradeRaces(
    of results: inout [Int: [(Mutation, Outcome)]], chapters: [Curriculum.Chapter], in copy: GradingCopy,
    grader: Grader, label: String, repeatCount: Int, progress: (@Sendable (String) -> Void)?
  ) {
    var grader = grader
    grader.racePass = .whenChecksPass
    var ready: [Int: [Int]] = [:]
    for chapter in chapters where chapter.raceChecked {
      ready[chapter.number] = results[chapter.number, default: []].indices.filter { index in
        guard case .graded(let report) = results[chapter.number]![index].1 else { return false }
        return grader.racesReady(report)
      }
    }
    let rounds = ready.values.map(\.count).max() ?? 0
    // Every round builds all of them, those without a fix that round as they
    // are: a chapter whose last fix did not compile gives way to its solution
    // first, or every round's build would leave it out, with a plan of its own.
    for chapter in chapters where chapter.raceChecked && rounds > 0 {
      switch results[chapter.number]?.last?.1 {
      case .graded(let report)? where report.compileErrors.isEmpty: continue
      default: try? Self.place(solutionOf: chapter, in: copy, applying: nil)
      }
    }
    for round in 0..<rounds {
      progress?("\(label), ThreadSanitizer round \(round + 1) of \(rounds)")
      var batch: [(chapter: Int, index: Int, report: ChapterReport)] = []
      for chapter in chapters {
        guard let indices = ready[chapter.number], round < indices.count else { continue }
        let index = indices[round]
        guard case .graded(let report) = results[chapter.number]![index].1 else { continue }
        do {
          try Self.place(solutionOf: chapter, in: copy, applying: results[chapter.number]![index].0)
          batch.append((chapter.number, index, report))
        } catch {
          results[chapter.number]![index].1 = .unusable("cannot be applied again: \(error)")
        }
      }
      guard !batch.isEmpty else { continue }
      let plain = batch.map(\.report)
      do {
        // Every round builds all of the copy's race-checked chapters, those
        // without a fix this round as they are: one build plan for all
        // rounds, so that after the first each is compiled from it, a
        // changed chapter at a time, without SwiftPM (see
        // ``Grader/rebuildsWithoutSwiftPM``).
        let build = try grader.raceBuild(only: chapters.filter(\.raceChecked))
        let runs = (0..<max(repeatCount, 1)).map { _ in grader.raceCheck(plain, build: build) }
        for (position, entry) in batch.enumerated() {
          // A run that could not decide agrees with any other.
          let stands = Self.representative(of: runs.map { $0[position] })
          let report = runs[stands][position]
          let mutation = results[entry.chapter]![entry.index].0
          if let run = runs.indices.first(where: {
            !Self.isUndecided(runs[$0][position]) && verdict(runs[$0][position]) != verdict(report)
          }) {
            results[entry.chapter]![entry.index].1 = .unusable(
              "not the same verdict in \(runs.count) runs under ThreadSanitizer: run \(stands + 1) \(verdict(report)) (\(report.signature)); run \(run + 1) \(verdict(runs[run][position])) (\(runs[run][position].signature))"
            )
          } else {
            results[entry.chapter]![entry.index] = (mutation, .graded(report))
          }
        }
      } catch {
        for entry in batch {
          results[entry.chapter]![entry.index].1 = .unusable(
            "cannot be built with ThreadSanitizer: \(error)")
        }
      }
    }
  }
}
