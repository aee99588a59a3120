import WorkshopCore

/// `workshop solution [<chapter>]`: the reference solution beside the learner's code.
struct SolutionCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "solution", summary: "Compare your code with the reference solution.",
    discussion: """
      Once a chapter is done, shows how the reference solution differs from
      your files, with its comments on each fix. Before that, says how many
      checks are left and offers a hint instead.
      """,
    argument: .chapter, options: [forceOption])

  static let forceOption = Option(
    name: "--force", help: "Show the solution even though the chapter is not done yet.")

  /// The chapter asked for; nil for the one just finished, or else the one
  /// the learner is on.
  var chapter: String?
  /// Show it even though the chapter is not done.
  var force: Bool

  init(chapter: String?, force: Bool = false) {
    self.chapter = chapter
    self.force = force
  }

  init(parsing arguments: ParsedArguments) throws {
    chapter = arguments.argument
    force = arguments.flag(Self.forceOption)
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    // Without a chapter: the one just finished, if any.
    let finished = chapter == nil ? Whereabouts(workspace: workspace).lastDone() : nil
    guard let found = finished ?? workshop.resolve(chapter, in: workspace) else {
      return Workshop.ExitCode.usage
    }
    return workshop.solution(found, workspace, force: force)
  }
}
