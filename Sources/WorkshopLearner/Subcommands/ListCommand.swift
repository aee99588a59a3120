import WorkshopCore

/// `workshop list`: the chapters.
struct ListCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(name: "list", summary: "List the chapters.")

  init() {}

  init(parsing arguments: ParsedArguments) throws {}

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    let text = CourseText(workspace: workspace, language: workshop.language)
    let chapters = workspace.curriculum.chapters
    let width = chapters.map { Columns.width(of: text.title($0)) }.max() ?? 0
    for chapter in chapters {
      let title = text.title(chapter)
      let padded = title + String(repeating: " ", count: width - Columns.width(of: title))
      workshop.console.out(
        "\(chapter.paddedNumber)  \(workshop.style.bold(padded))  \(workshop.style.dim(text.summary(chapter)))"
      )
    }
    return Workshop.ExitCode.success
  }
}
