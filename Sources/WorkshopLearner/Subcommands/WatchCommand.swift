import WorkshopCore

/// `workshop watch [<chapter>]`: grading on every save.
struct WatchCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "watch", summary: "Grade on every save, until you press q.",
    discussion: """
      Grades every chapter, then again each time you save a file in Chapters/:
      the chapter you saved last in full, the others in one line. A save that
      does not compile shows the compiler's error; a save while grading runs
      is graded right after it. Quit with q or Ctrl-C.
      """,
    argument: .chapter, options: GradingOptions.options)

  /// The chapter to show in full until another is saved; nil for the one
  /// the learner is on.
  var chapter: String?
  var options: GradingOptions

  init(chapter: String?, options: GradingOptions = GradingOptions()) {
    self.chapter = chapter
    self.options = options
  }

  init(parsing arguments: ParsedArguments) throws {
    chapter = arguments.argument
    options = try GradingOptions(parsing: arguments)
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    var found: Curriculum.Chapter?
    if let chapter {
      guard let named = workshop.resolve(chapter, in: workspace) else { return Workshop.ExitCode.usage }
      found = named
    }
    return workshop.watch(found, workspace, options)
  }
}
