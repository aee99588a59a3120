import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor

/// What `grade` does with a check that could not decide during the class.
@Suite("Undecided checks, graded again after the class")
struct AfterClassTests {
  static let chapter = Curriculum.Chapter(
    number: 6, name: "Bridges", title: "Bridges", summary: "Summary.", files: ["Code.swift"], hints: [],
    starterFails: [])

  static func grade(_ statuses: [CheckResult.Status], seconds: Double = 10) -> SubmissionGrade {
    let checks = statuses.enumerated().map { CheckResult(id: "c\($0)", name: "Check \($0)", status: $1) }
    return SubmissionGrade(
      name: "ada", source: "/x", reports: [ChapterReport(chapter: chapter, checks: checks)], notGraded: nil,
      ignored: [], flags: [], seconds: seconds, reused: 0)
  }

  @Test("Only the chapters with an undecided check are graded again")
  func chaptersToGradeAgain() {
    #expect(ClassGrader.undecidedChapters(Self.grade([.passed, .undecided])) == [6])
    #expect(ClassGrader.undecidedChapters(Self.grade([.passed, .failed])).isEmpty)
  }

  @Test(
    "What the second grading decides replaces undecided checks only; what it cannot decide stays undecided")
  func merge() {
    let first = Self.grade([.passed, .undecided, .undecided, .failed])
    let second = Self.grade([.failed, .passed, .undecided, .passed], seconds: 5)
    let merged = ClassGrader.deciding(first, with: second)
    #expect(merged.reports[0].checks.map(\.status) == [.passed, .passed, .undecided, .failed])
    #expect(merged.seconds == 15)
  }

  @Test("A second grading that could not run changes no check")
  func secondNotGraded() {
    let first = Self.grade([.undecided])
    var second = Self.grade([.passed])
    second.notGraded = "stopped"
    #expect(ClassGrader.deciding(first, with: second).reports[0].checks.map(\.status) == [.undecided])
  }

  @Test("The second grading gives the kit more time than a chapter's grading does")
  func morePatience() {
    #expect(ClassGrader.afterClassPatience > Grader.defaultPatience)
  }
}
