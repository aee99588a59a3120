import Foundation
import WorkshopCore

extension Verifier {
  /// Every check of a chapter names the declaration it exercises
  /// (`.exercising("…")`), and the starter and the solution both declare it:
  /// a failing check then points at the learner's own line.
  ///
  /// Starts reading the chapters for that on a thread of its own (a few
  /// seconds of a core: every chapter's files, read as Swift), and returns
  /// what reports it.
  func startExercisedCheck(reports: [ChapterReport]) -> Background<[(item: String, problems: [String])]> {
    let workspace = self.workspace
    return Background {
      let exercised = ExercisedDeclarations(workspace: workspace)
      return reports.filter { !$0.chapter.writesChecks && !$0.checks.isEmpty }.map { report in
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
        return (
          "\(chapter.paddedNumber) \(chapter.title): each check points at the declaration it exercises",
          problems
        )
      }
    }
  }

  /// Reports what ``startExercisedCheck(reports:)`` found: an item per chapter.
  func checkExercised(_ tally: Tally, _ check: Background<[(item: String, problems: [String])]>) {
    for (item, problems) in check.value() {
      tally.item(problems.isEmpty, item, problems, quiet: true)
    }
  }
}
