import Foundation
import WorkshopCore

/// `workshop grade <submission> ...`: a class's submissions, graded and reported.
struct GradeCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "grade", summary: "Grade a class's submissions against this checkout's checks.",
    discussion: """
      Takes only the Swift files in each submission's Chapters/NN-Name/ folders
      and grades them, in a sandbox, against the checks of this checkout: a
      submission's own Tests/, Package.swift or curriculum.json change nothing.
      Writes per submission results.json (Gradescope) and junit.xml, and for
      the class class.csv and summary.md. Code no exercise needs (reading the
      environment, starting processes, writing files, ...) is flagged "needs
      review". Exits 0 when every submission was graded, whatever its score,
      and 1 when one could not be (its report says why). Runs in
      workshop-instructor, which SwiftPM builds on first use.
      """,
    argument: .init(
      name: "submission",
      help:
        "A learner's copy of the workshop, its Chapters/ folder, or a .zip or .tar.gz of either. Give as many as you like.",
      repeats: true),
    options: [reportDirectoryOption, jobsOption, Option.timeout, unsandboxedOption])

  /// Where `grade` writes its reports unless told otherwise.
  static let defaultReportDirectory = "grades"

  static let reportDirectoryOption = Option(
    name: "--report-dir", value: "dir",
    help: "Where to write each submission's results.json and junit.xml, and class.csv and summary.md.",
    defaultValue: defaultReportDirectory)
  static let jobsOption = Option(
    name: "--jobs", value: "n", help: "How many submissions to grade at the same time, from 1 to 64.",
    defaultValue: "the number of cores")
  static let unsandboxedOption = Option(
    name: "--unsandboxed",
    help:
      "Grade without a sandbox: learners' code then runs with your permissions and can change any of your files."
  )

  /// The submissions, as given.
  var submissions: [String]
  /// Where the reports go, relative to the current folder.
  var reportDirectory: String
  /// How many submissions are graded at once; nil for the number of cores.
  var jobs: Int?
  /// Grade without a sandbox, on the instructor's say-so.
  var unsandboxed: Bool
  /// The hard time limit for one chapter's grading, in seconds.
  var timeLimit: Double

  init(
    submissions: [String], reportDirectory: String = defaultReportDirectory, jobs: Int? = nil,
    unsandboxed: Bool = false, timeLimit: Double = Grader.defaultTimeLimit
  ) {
    self.submissions = submissions
    self.reportDirectory = reportDirectory
    self.jobs = jobs
    self.unsandboxed = unsandboxed
    self.timeLimit = timeLimit
  }

  init(parsing arguments: ParsedArguments) throws {
    _ = try arguments.required(example: "submissions/*")
    let reportDirectory = arguments.value(Self.reportDirectoryOption) ?? Self.defaultReportDirectory
    if reportDirectory.trimmingCharacters(in: .whitespaces).isEmpty {
      throw arguments.error("'--report-dir' needs a folder")
    }
    self.init(
      submissions: arguments.arguments, reportDirectory: reportDirectory,
      jobs: try arguments.wholeNumber(Self.jobsOption, in: 1...64),
      unsandboxed: arguments.flag(Self.unsandboxedOption),
      timeLimit: try arguments.timeLimit() ?? Grader.defaultTimeLimit)
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    workshop.grade(workspace, self)
  }
}
