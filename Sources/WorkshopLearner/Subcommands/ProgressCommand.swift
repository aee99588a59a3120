import WorkshopCore

/// `workshop` or `workshop progress`: every chapter graded, as a table.
struct ProgressCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "progress", summary: "Grade every chapter and show what to do next.",
    discussion: """
      Builds the chapters, runs each chapter's checks in processes of its own
      (a crash or a hang in one chapter never stops the others), and prints a
      progress table.
      """,
    options: GradingOptions.options, isDefault: true)

  var options: GradingOptions

  init(options: GradingOptions = GradingOptions()) { self.options = options }

  init(parsing arguments: ParsedArguments) throws {
    options = try GradingOptions(parsing: arguments)
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    workshop.progress(workspace, options)
  }
}
