import WorkshopCore

/// What every grading subcommand (`progress`, `check`, `watch`) is told:
/// which folder to grade, and for how long at most.
struct GradingOptions: Equatable, Sendable {
  /// Grade `Solutions/` instead of `Chapters/`.
  var solutions = false
  /// The hard time limit for one chapter's grading, in seconds.
  var timeLimit: Double = Grader.defaultTimeLimit

  init(solutions: Bool = false, timeLimit: Double = Grader.defaultTimeLimit) {
    self.solutions = solutions
    self.timeLimit = timeLimit
  }

  /// Reads `--solutions` and `--timeout`.
  init(parsing arguments: ParsedArguments) throws {
    solutions = arguments.flag(Self.solutionsOption)
    timeLimit = try arguments.timeLimit() ?? Grader.defaultTimeLimit
  }

  /// The folder graded.
  var variant: Variant { solutions ? .solutions : .chapters }

  /// `--solutions`.
  static let solutionsOption = Option(
    name: "--solutions", help: "Grade Solutions/ instead of Chapters/.")

  /// Both options, as the grading subcommands list them.
  static let options = [solutionsOption, Option.timeout]
}

extension SubcommandConfiguration.Argument {
  /// A chapter, left out for the one the learner is on.
  static let chapter = Self(
    name: "chapter", help: "A number (4 or 04) or a name (DebouncedSearch).", whenLeftOut: currentChapter)

  /// What a subcommand whose chapter is left out works on.
  static let currentChapter = "the chapter you are on (the one you edited last that is not done)"
}
