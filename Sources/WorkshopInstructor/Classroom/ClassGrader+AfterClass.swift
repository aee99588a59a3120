import Foundation
import Synchronization
import WorkshopCore

// The class's submissions shared among the jobs, and the second pass that
// grades again, after the class, the chapters whose checks could not decide.
extension ClassGrader {
  /// Runs `body` for each of `indices`, in order, one per slot at a time,
  /// until the runner is stopped.
  static func work(
    _ indices: [Int], slots: [GradingCopy], _ body: @escaping @Sendable (Int, GradingCopy, Int) -> Void
  ) {
    let next = Mutex(0)
    let group = DispatchGroup()
    for (slotIndex, slot) in slots.enumerated() {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        while !Interrupts.isStopping {
          let position = next.withLock { value in
            defer { value += 1 }
            return value
          }
          guard position < indices.count else { return }
          body(indices[position], slot, slotIndex)
        }
      }
    }
    group.wait()
  }

  /// How many times the kit's bound an undecided check gets when its
  /// chapter is graded again after the class (twice what it got during it).
  static let afterClassPatience: Double = 2 * Grader.defaultPatience

  /// The chapters of `grade` with a check that could not decide.
  static func undecidedChapters(_ grade: SubmissionGrade) -> Set<Int> {
    Set(grade.reports.filter { $0.checks.contains { $0.status == .undecided } }.map(\.chapter.number))
  }

  /// `first`, with each of its undecided checks replaced by what `second`
  /// (the same submission's chapters graded again) decided for it: passed
  /// or failed. A check `second` could not decide either stays undecided.
  static func deciding(_ first: SubmissionGrade, with second: SubmissionGrade) -> SubmissionGrade {
    var merged = first
    merged.seconds += second.seconds
    guard second.notGraded == nil else { return merged }
    for (chapterIndex, report) in merged.reports.enumerated() {
      guard let again = second.reports.first(where: { $0.chapter.number == report.chapter.number })
      else { continue }
      for (checkIndex, check) in report.checks.enumerated() where check.status == .undecided {
        if let decided = again.checks.first(where: {
          $0.id == check.id && ($0.status == .passed || $0.status == .failed)
        }) {
          merged.reports[chapterIndex].checks[checkIndex] = decided
        }
      }
    }
    return merged
  }
}
