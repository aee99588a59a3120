import Foundation
import WorkshopCore

extension Verifier {
  /// Every check of a chapter names the declaration it exercises
  /// (`.exercising("…")`), and the starter and the solution both declare it:
  /// a failing check then points at the learner's own line.
  func checkExercised(_ tally: Tally, reports: [ChapterReport]) {
    let exercised = ExercisedDeclarations(workspace: workspace)
    for report in reports where !report.chapter.writesChecks && !report.checks.isEmpty {
      let chapter = report.chapter
      var problems: [String] = []
      for check in report.checks {
        guard let declaration = exercised.declaration(ofCheck: check.id, in: chapter) else {
          problems.append("names no declaration (.exercising(\"…\")): \(check.name)")
          continue
        }
        for variant in [Variant.chapters, .solutions]
        where exercised.location(of: declaration, in: chapter, variant: variant) == nil {
          problems.append(
            "\(declaration) is not declared in \(workspace.codeFolder(chapter, variant)): \(check.name)")
        }
      }
      tally.item(
        problems.isEmpty,
        "\(chapter.paddedNumber) \(chapter.title): each check points at the declaration it exercises",
        problems, quiet: true)
    }
  }
}
