import WorkshopCore

/// `workshop verify`: the course checked (see ``Verifier``).
struct VerifyCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "verify", summary: "Check the course itself (solutions, starters, tooling).",
    discussion: """
      The repository's test command. Verifies the course layout and its
      portability, that every solution passes every check, that every starter
      fails exactly the checks curriculum.json declares, that every wrong fix
      in Mutations/ fails a check and every right one passes them all, and
      that the test kit's and the runner's own tests pass. Ends with
      'N passed, M failed' and exits 1 if anything failed. Runs in
      workshop-instructor, which SwiftPM builds on first use.
      """,
    options: [repeatOption, fixesOption, Option.timeout, recordStartersOption])

  static let repeatOption = Option(
    name: "--repeat", value: "count",
    help:
      "Grade every chapter, and every wrong and right fix, this many times (1 to 1000) and require identical results.",
    defaultValue: "1")
  static let fixesOption = Option(
    name: "--fixes", value: "chapter",
    help: "Check only this chapter's wrong and right fixes (Mutations/), or every chapter's with 'all'.")
  static let recordStartersOption = Option(
    name: "--record-starters",
    help:
      "First record the files in Chapters/ as the starters the course ships (curriculum.json's \"starter\").")

  /// How many times everything is graded, with identical results required.
  var repeatCount: Int
  /// Only this chapter's fixes (`all`: every chapter's); nil for everything.
  var fixesOf: String?
  /// The hard time limit for one chapter's grading, in seconds.
  var timeLimit: Double
  /// First record `Chapters/` as the starters the course ships.
  var recordStarters: Bool

  init(
    repeatCount: Int = 1, fixesOf: String? = nil, timeLimit: Double = Grader.defaultTimeLimit,
    recordStarters: Bool = false
  ) {
    self.repeatCount = repeatCount
    self.fixesOf = fixesOf
    self.timeLimit = timeLimit
    self.recordStarters = recordStarters
  }

  init(parsing arguments: ParsedArguments) throws {
    self.init(
      repeatCount: try arguments.wholeNumber(Self.repeatOption, in: 1...1000) ?? 1,
      fixesOf: arguments.value(Self.fixesOption),
      timeLimit: try arguments.timeLimit() ?? Grader.defaultTimeLimit,
      recordStarters: arguments.flag(Self.recordStartersOption))
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    workshop.verify(workspace, self)
  }
}
