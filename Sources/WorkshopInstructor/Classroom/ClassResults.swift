import Foundation
import WorkshopCore

/// A submission's grade as a list of items worth points: what every report
/// of `workshop grade` (Gradescope, JUnit, CSV, the tables) is written from.
///
/// Every submission is graded on the same items, the pristine course's, so
/// totals compare across a class: a chapter that does not compile, or was
/// not handed in, fails each of its items with the reason. In a chapter
/// where learners write the checks, their own checks count as one item.
struct ClassResult: Sendable {
  /// One graded item: a check, or one of the items a learner's checks are graded on.
  struct Item: Sendable {
    package enum Status: String, Sendable {
      case passed
      /// The check ran and failed.
      case failed
      /// No result: a crash, a time limit, a compile error, no code handed in.
      case error
    }

    var chapter: Curriculum.Chapter
    var name: String
    /// `04.3`: the chapter and the item's place in it.
    var number: String
    var status: Status
    /// The failure, with the events recorded while the check ran; empty when passed.
    var output: String
    var maxScore: Double
    var score: Double { status == .passed ? maxScore : 0 }
    /// How long the check ran; 0 when it did not run or was not timed.
    var seconds: Double = 0
  }

  /// One chapter's items and state.
  package struct Chapter: Sendable {
    var chapter: Curriculum.Chapter
    var state: ChapterReport.State
    var items: [Item]
    var passed: Int { items.filter { $0.status == .passed }.count }

    /// `9 of 12`, or the state when no check could run, for tables and CSV.
    /// Not `9/12`: spreadsheets read that as a date.
    var cell: String { cell(.english) }

    /// ``cell`` in `words`: `9 of 12`, `12 项通过 9 项`.
    func cell(_ words: Language) -> String {
      let count = words("\(passed) of \(items.count)", "\(items.count) 项通过 \(passed) 项")
      switch state {
      case .doesNotCompile, .notHandedIn: return state.label(words)
      case .crashed, .timedOut, .raceCheckNotRun, .noChecks:
        return count + words(" (", "（") + state.label(words) + words(")", "）")
      default: return count
      }
    }
  }

  var grade: SubmissionGrade
  /// Empty when the submission was not graded.
  var chapters: [Chapter]

  var items: [Item] { chapters.flatMap(\.items) }
  var passed: Int { items.filter { $0.status == .passed }.count }
  var total: Int { items.count }
  var score: Double { items.reduce(0) { $0 + $1.score } }
  var maxScore: Double { items.reduce(0) { $0 + $1.maxScore } }

  /// The result of `grade`, over the course's items; the items' output in
  /// `words` (check names and recorded values stay as they are).
  init(_ grade: SubmissionGrade, items: ClassGrader.Items, course: Workspace, words: Language = .english) {
    self.grade = grade
    guard grade.notGraded == nil else {
      chapters = []
      return
    }
    chapters = grade.reports.map { report in
      let chapter = report.chapter
      let expected = items.byChapter[chapter.number] ?? []
      let byID = Dictionary(report.scored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
      let why = Self.chapterProblem(report, course: course, words: words)
      var list: [Item] = []
      for (index, check) in expected.enumerated() {
        var item = Item(
          chapter: chapter, name: check.name, number: "\(chapter.paddedNumber).\(index + 1)",
          status: .error, output: "", maxScore: chapter.pointsPerCheck)
        if let why {
          item.output = why
        } else if let result = byID[check.id] {
          switch result.status {
          case .passed: item.status = .passed
          case .failed: item.status = .failed
          case .skipped: item.status = .failed
          case .interrupted: item.status = .error
          // No result either way: an error, not a failure of the learner's.
          case .undecided: item.status = .error
          }
          item.output = result.issues.map { $0.words(words) }.joined(separator: "\n\n")
          item.seconds = result.seconds ?? 0
          if result.status == .skipped, item.output.isEmpty { item.output = words("Skipped.", "已跳过。") }
        } else {
          item.output =
            words(
              "No result: the chapter's run never reported this check.", "没有结果：这一章的运行从未报告这项检查。")
            + (report.crash.map { words("\nThe run ended: ", "\n运行结束了：") + $0 } ?? "")
        }
        list.append(item)
      }
      return Chapter(chapter: chapter, state: report.state, items: list)
    }
  }

  /// Why none of a chapter's checks has a result, if so.
  static func chapterProblem(_ report: ChapterReport, course: Workspace, words: Language = .english)
    -> String?
  {
    if report.notHandedIn {
      let folder = course.codeFolder(report.chapter, .chapters)
      return words(
        "Not handed in: the submission has no \(folder)/ folder.", "未提交：这份提交里没有 \(folder)/ 文件夹。")
    }
    if !report.compileErrors.isEmpty {
      // The first error's own line first: CI tools show a failure's first
      // line, and it says where (`Chapters/04-X/File.swift:12:5: error: ...`).
      let output = report.compileErrors.joined(separator: "\n")
      let first = Diagnostics.compilerErrors(in: output).first.map { firstLine(of: $0.text) }
      return words("Does not compile", "编译失败") + (first.map { words(": ", "：") + $0 } ?? words(":", "："))
        + "\n"
        + output
    }
    return nil
  }
}
