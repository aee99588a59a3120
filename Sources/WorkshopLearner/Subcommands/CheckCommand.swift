import WorkshopCore

/// `workshop check [<chapter>]`: one chapter's checks, every failure explained.
struct CheckCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "check", summary: "Run one chapter's checks and explain every failure.",
    discussion: """
      A failing check shows what was expected, what happened, and the events
      recorded while it ran. Exits 1 while any check fails. Without a
      chapter, checks \(SubcommandConfiguration.Argument.currentChapter).
      """,
    argument: .chapter, options: GradingOptions.options + [timelineOption])

  /// `--timeline`.
  static let timelineOption = Option(
    name: "--timeline",
    help:
      "Also draw each failing check's recorded events as a timeline: one HTML page to open in a browser, and an SVG per check, in .workshop/\(timelineFolder)/."
  )

  /// Where `check --timeline` writes its pages, under the workshop's own folder.
  static let timelineFolder = "timelines"

  /// The chapter asked for; nil for the one the learner is on.
  var chapter: String?
  var options: GradingOptions
  /// Also draw each failing check's events as a timeline.
  var timeline: Bool

  init(chapter: String?, options: GradingOptions = GradingOptions(), timeline: Bool = false) {
    self.chapter = chapter
    self.options = options
    self.timeline = timeline
  }

  init(parsing arguments: ParsedArguments) throws {
    chapter = arguments.argument
    options = try GradingOptions(parsing: arguments)
    timeline = arguments.flag(Self.timelineOption)
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    guard let chapter = workshop.resolve(chapter, in: workspace) else { return Workshop.ExitCode.usage }
    return workshop.check(chapter, workspace, options, timeline: timeline)
  }
}
