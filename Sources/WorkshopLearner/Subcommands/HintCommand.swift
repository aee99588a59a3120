import WorkshopCore

/// `workshop hint [<chapter>]`: the next hint.
struct HintCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "hint", summary: "Show the next hint for a chapter.",
    discussion: """
      Each call shows one more hint, from a nudge to nearly the answer. In a
      chapter with several exercises, the hints are for the exercise whose
      checks still fail; when several do, it asks which. Without a chapter,
      hints for \(SubcommandConfiguration.Argument.currentChapter).
      """,
    argument: .chapter, options: [resetOption, exerciseOption])

  static let resetOption = Option(
    name: "--reset", help: "Start the chapter's hints from the first one again.")
  static let exerciseOption = Option(
    name: "--exercise", value: "name",
    help: "In a chapter with several exercises, the one to hint at (its name or file).")

  /// The chapter asked for; nil for the one the learner is on.
  var chapter: String?
  /// Start from the first hint again.
  var reset: Bool
  /// The exercise to hint at, in a chapter with several.
  var exercise: String?

  init(chapter: String?, reset: Bool = false, exercise: String? = nil) {
    self.chapter = chapter
    self.reset = reset
    self.exercise = exercise
  }

  init(parsing arguments: ParsedArguments) throws {
    chapter = arguments.argument
    reset = arguments.flag(Self.resetOption)
    exercise = arguments.value(Self.exerciseOption)
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    guard let chapter = workshop.resolve(chapter, in: workspace) else { return Workshop.ExitCode.usage }
    return workshop.hint(chapter, workspace, reset: reset, exercise: exercise)
  }
}
