import WorkshopCore

/// `workshop list`: the chapters.
struct ListCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(name: "list", summary: "List the chapters.")

  init() {}

  init(parsing arguments: ParsedArguments) throws {}

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    let width = workspace.curriculum.chapters.map(\.title.count).max() ?? 0
    for chapter in workspace.curriculum.chapters {
      let title = chapter.title + String(repeating: " ", count: width - chapter.title.count)
      workshop.console.out(
        "\(chapter.paddedNumber)  \(workshop.style.bold(title))  \(workshop.style.dim(chapter.summary))")
    }
    return Workshop.ExitCode.success
  }
}
