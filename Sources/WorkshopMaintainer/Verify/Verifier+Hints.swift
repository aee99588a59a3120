import Foundation
import WorkshopCore

extension Verifier {
  /// What is wrong with a chapter's hints: too few, no "Nearly there" hint
  /// to end an exercise, or an exercise whose suites are not in its checks.
  func hintProblems(_ chapter: Curriculum.Chapter) -> [String] {
    var problems: [String] = []
    if chapter.exercises.isEmpty {
      if chapter.files.count > 1 {
        problems.append("\(chapter.files.count) files but no exercises: give each file its hints")
      }
      if chapter.hints.count < 3 {
        problems.append("only \(chapter.hints.count) hints; at least 3 are needed")
      }
    } else if !chapter.hints.isEmpty {
      problems.append("both hints and exercises: move the hints into the exercises")
    }
    let checks =
      Files.under(workspace.url(workspace.checksFolder(chapter)), suffix: ".swift")
      .compactMap {
        try? String(contentsOf: workspace.url(workspace.checksFolder(chapter) + "/" + $0), encoding: .utf8)
      }
      .joined(separator: "\n")
    for exercise in chapter.allExercises {
      let label = chapter.exercises.isEmpty ? "" : "exercise '\(exercise.name)': "
      if exercise.hints.count < 2 {
        problems.append(label + "only \(exercise.hints.count) hints; at least 2 are needed")
      }
      if exercise.hints.last?.text.hasPrefix("Nearly there") != true {
        problems.append(label + "the last hint does not start with \"Nearly there\"")
      }
      if !chapter.files.contains(exercise.file) {
        problems.append(label + "\(exercise.file) is not one of the chapter's files")
      }
      for suite in exercise.suites
      where !checks.contains("struct \(suite) ") && !checks.contains("struct \(suite){") {
        problems.append(label + "no suite \(suite) in \(workspace.checksFolder(chapter))")
      }
      for (index, hint) in exercise.hints.enumerated() {
        for name in hint.about where !checks.contains("func \(name)(") {
          problems.append(label + "hint \(index + 1) is about \(name), which is not a check's function")
        }
      }
    }
    return problems
  }
}
