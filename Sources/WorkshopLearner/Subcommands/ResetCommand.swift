import WorkshopCore

/// `workshop reset <chapter>` or `workshop reset --all`: starter code back,
/// the learner's files backed up first.
struct ResetCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "reset", summary: "Start a chapter again from its starter code.",
    discussion: """
      Puts the chapter's files back as the course shipped them, even if you
      committed your changes. Your files are first copied to
      .workshop/backups/<chapter>/<time>/, and the command says where.
      """,
    argument: .init(name: "chapter", help: "A number (4 or 04) or a name (DebouncedSearch)."),
    options: [allOption])

  static let allOption = Option(name: "--all", help: "Reset every chapter.")

  /// The chapter to reset; nil with `all`.
  var chapter: String?
  /// Reset every chapter.
  var all: Bool

  init(chapter: String?, all: Bool = false) {
    self.chapter = chapter
    self.all = all
  }

  init(parsing arguments: ParsedArguments) throws {
    all = arguments.flag(Self.allOption)
    if all {
      if let chapter = arguments.argument {
        throw arguments.error(
          "give a chapter or '--all', not both ('\(chapter)')", chinese: "给一个章节或 '--all'，不要两个都给（'\(chapter)'）"
        )
      }
      chapter = nil
    } else {
      chapter = try arguments.required(example: "04")
    }
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    if all { return workshop.reset(workspace.curriculum.chapters, workspace) }
    guard let chapter = workshop.resolve(chapter, in: workspace) else { return Workshop.ExitCode.usage }
    return workshop.reset([chapter], workspace)
  }
}
