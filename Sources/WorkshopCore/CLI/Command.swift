/// A parsed command line.
public enum Command: Equatable, Sendable {
  /// Grade every chapter and show progress (the default).
  case progress(Options)
  /// Run one chapter's checks and explain each failure; nil for the chapter
  /// the learner is on.
  case check(chapter: String?, Options)
  /// Grade on every save, until the learner quits.
  case watch(chapter: String?, Options)
  /// Show the next hint for a chapter (nil: the chapter the learner is on).
  case hint(chapter: String?, reset: Bool, exercise: String? = nil)
  /// Put a chapter's files (or every chapter's) back as the course shipped
  /// them, after backing them up.
  case reset(chapter: String?, all: Bool)
  /// Show a chapter's reference solution beside the learner's code.
  case solution(chapter: String?, force: Bool)
  /// Check the course itself.
  case verify(repeatCount: Int, fixesOf: String?, Options)
  /// Grade a class's submissions against the pristine checks.
  case grade(submissions: [String], ClassOptions)
  /// A maintainer's task: `package` writes Package.swift's chapter list.
  case dev(task: String)
  /// List the chapters.
  case list
  /// Show help, for the tool or one subcommand.
  case help(String?)
  /// Show the version.
  case version

  /// Options shared by the grading subcommands.
  public struct Options: Equatable, Sendable {
    /// Grade `Solutions/` instead of `Chapters/`.
    public var solutions = false
    /// The hard time limit for one chapter's grading, in seconds.
    public var timeLimit: Double = Grader.defaultTimeLimit
    /// `verify`: first record `Chapters/` as the starters the course ships.
    public var recordStarters = false
    /// `check`: also draw each failing check's events as a timeline.
    public var timeline = false

    public init(
      solutions: Bool = false, timeLimit: Double = Grader.defaultTimeLimit, recordStarters: Bool = false
    ) {
      self.solutions = solutions
      self.timeLimit = timeLimit
      self.recordStarters = recordStarters
    }
  }

  /// Options of `grade`.
  public struct ClassOptions: Equatable, Sendable {
    /// Where the reports go, relative to the current folder.
    public var reportDirectory = CommandLineSpec.defaultReportDirectory
    /// How many submissions are graded at once; nil for the number of cores.
    public var jobs: Int?
    /// Grade without a sandbox, on the instructor's say-so.
    public var unsandboxed = false
    /// The hard time limit for one chapter's grading, in seconds.
    public var timeLimit: Double = Grader.defaultTimeLimit

    public init(
      reportDirectory: String = CommandLineSpec.defaultReportDirectory, jobs: Int? = nil,
      unsandboxed: Bool = false, timeLimit: Double = Grader.defaultTimeLimit
    ) {
      self.reportDirectory = reportDirectory
      self.jobs = jobs
      self.unsandboxed = unsandboxed
      self.timeLimit = timeLimit
    }
  }

  /// The tasks `dev` knows.
  public static let devTasks = ["package"]

  /// The subcommands, in the order help lists them.
  public static var subcommands: [String] { CommandLineSpec.subcommands.map(\.name) }
}

/// A command line that cannot be run as written (exit status 64).
public struct UsageError: Error, Equatable, CustomStringConvertible {
  public var message: String
  /// The subcommand whose usage line to show with the error.
  public var subcommand: String?

  public var description: String { message }
}

// MARK: - The table

/// The command line, as one table: parsing, validation, help and usage
/// lines are all derived from it.
public enum CommandLineSpec {
  /// An option.
  struct Option {
    /// `--timeout`.
    var name: String
    /// The value's placeholder (`seconds`); nil for a flag.
    var value: String?
    var help: String
    /// The default, as help shows it.
    var defaultValue: String?
  }

  /// A subcommand.
  struct Subcommand {
    var name: String
    /// The positional argument's placeholder and help, if it takes one.
    var argument: (name: String, help: String)?
    var summary: String
    var discussion: String
    var options: [Option]
    var isDefault = false
    /// Whether the positional argument may be given more than once.
    var repeats = false
    /// What the subcommand does without its argument, if it may be left out.
    var withoutArgument: String?
  }

  /// Where `grade` writes its reports unless told otherwise.
  public static let defaultReportDirectory = "grades"

  static let solutions = Option(
    name: "--solutions", value: nil, help: "Grade Solutions/ instead of Chapters/.")
  static let timeout = Option(
    name: "--timeout", value: "seconds",
    help: "The time limit for one chapter's grading, from 1 to 3600.",
    defaultValue: String(Int(Grader.defaultTimeLimit)))
  static let reset = Option(
    name: "--reset", value: nil, help: "Start the chapter's hints from the first one again.")
  static let repeatCount = Option(
    name: "--repeat", value: "count",
    help:
      "Grade every chapter, and every wrong and right fix, this many times (1 to 1000) and require identical results.",
    defaultValue: "1")
  static let fixes = Option(
    name: "--fixes", value: "chapter",
    help: "Check only this chapter's wrong and right fixes (Mutations/), or every chapter's with 'all'.")
  static let chapter = (name: "chapter", help: "A number (4 or 04) or a name (DebouncedSearch).")
  /// What a subcommand whose chapter is left out works on.
  static let currentChapter = "the chapter you are on (the one you edited last that is not done)"
  static let recordStarters = Option(
    name: "--record-starters", value: nil,
    help:
      "First record the files in Chapters/ as the starters the course ships (curriculum.json's \"starter\").")
  static let exercise = Option(
    name: "--exercise", value: "name",
    help: "In a chapter with several exercises, the one to hint at (its name or file).")
  /// Where `check --timeline` writes its pages, under the workshop's own folder.
  public static let timelineFolder = "timelines"
  static let timeline = Option(
    name: "--timeline", value: nil,
    help:
      "Also draw each failing check's recorded events as a timeline: one HTML page to open in a browser, and an SVG per check, in .workshop/\(timelineFolder)/."
  )
  static let all = Option(name: "--all", value: nil, help: "Reset every chapter.")
  static let force = Option(
    name: "--force", value: nil, help: "Show the solution even though the chapter is not done yet.")
  static let reportDirectory = Option(
    name: "--report-dir", value: "dir",
    help: "Where to write each submission's results.json and junit.xml, and class.csv and summary.md.",
    defaultValue: defaultReportDirectory)
  static let jobs = Option(
    name: "--jobs", value: "n", help: "How many submissions to grade at the same time, from 1 to 64.",
    defaultValue: "the number of cores")
  static let unsandboxed = Option(
    name: "--unsandboxed", value: nil,
    help:
      "Grade without a sandbox: learners' code then runs with your permissions and can change any of your files."
  )

  static let subcommands: [Subcommand] = [
    Subcommand(
      name: "progress", summary: "Grade every chapter and show what to do next.",
      discussion: """
        Builds the chapters, runs each chapter's checks in processes of its own
        (a crash or a hang in one chapter never stops the others), and prints a
        progress table.
        """,
      options: [solutions, timeout], isDefault: true),
    Subcommand(
      name: "check", argument: chapter, summary: "Run one chapter's checks and explain every failure.",
      discussion: """
        A failing check shows what was expected, what happened, and the events
        recorded while it ran. Exits 1 while any check fails. Without a
        chapter, checks \(currentChapter).
        """,
      options: [solutions, timeout, timeline], withoutArgument: currentChapter),
    Subcommand(
      name: "watch", argument: chapter, summary: "Grade on every save, until you press q.",
      discussion: """
        Grades every chapter, then again each time you save a file in Chapters/:
        the chapter you saved last in full, the others in one line. A save that
        does not compile shows the compiler's error; a save while grading runs
        is graded right after it. Quit with q or Ctrl-C.
        """,
      options: [solutions, timeout], withoutArgument: currentChapter),
    Subcommand(
      name: "hint", argument: chapter, summary: "Show the next hint for a chapter.",
      discussion: """
        Each call shows one more hint, from a nudge to nearly the answer. In a
        chapter with several exercises, the hints are for the exercise whose
        checks still fail; when several do, it asks which. Without a chapter,
        hints for \(currentChapter).
        """,
      options: [reset, exercise], withoutArgument: currentChapter),
    Subcommand(
      name: "solution", argument: chapter, summary: "Compare your code with the reference solution.",
      discussion: """
        Once a chapter is done, shows how the reference solution differs from
        your files, with its comments on each fix. Before that, says how many
        checks are left and offers a hint instead.
        """,
      options: [force], withoutArgument: currentChapter),
    Subcommand(
      name: "reset", argument: chapter, summary: "Start a chapter again from its starter code.",
      discussion: """
        Puts the chapter's files back as the course shipped them, even if you
        committed your changes. Your files are first copied to
        .workshop/backups/<chapter>/<time>/, and the command says where.
        """,
      options: [all]),
    Subcommand(
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
      options: [repeatCount, fixes, timeout, recordStarters]),
    Subcommand(
      name: "grade",
      argument: (
        name: "submission",
        help:
          "A learner's copy of the workshop, its Chapters/ folder, or a .zip or .tar.gz of either. Give as many as you like."
      ),
      summary: "Grade a class's submissions against this checkout's checks.",
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
      options: [reportDirectory, jobs, timeout, unsandboxed], repeats: true),
    Subcommand(
      name: "dev", argument: (name: "task", help: "'package': write Package.swift's chapter list."),
      summary: "The course maintainer's tasks.",
      discussion: """
        'dev package' writes the chapter list in Package.swift from
        curriculum.json, after a change to its chapters: commit both. Nothing
        else rewrites Package.swift, and 'verify' fails while the two disagree.
        Runs in workshop-instructor, which SwiftPM builds on first use.
        """,
      options: []),
    Subcommand(name: "list", summary: "List the chapters.", discussion: "", options: []),
    Subcommand(
      name: "help", argument: (name: "subcommand", help: "The subcommand to explain."),
      summary: "Show help information.", discussion: "", options: []),
  ]

  /// Every option some subcommand takes, once.
  static var allOptions: [Option] {
    var seen: Set<String> = []
    return subcommands.flatMap(\.options).filter { seen.insert($0.name).inserted }
  }

  static func subcommand(_ name: String) -> Subcommand? {
    subcommands.first { $0.name == name }
  }
}

// MARK: - Parsing

extension Command {
  /// Parses the arguments after the program name.
  public static func parse(_ arguments: [String]) throws -> Command {
    do {
      return try parseArguments(arguments)
    } catch var error as UsageError {
      // Show the usage of the subcommand the user was typing, if any.
      if error.subcommand == nil, let first = arguments.first(where: { !$0.hasPrefix("-") }),
        CommandLineSpec.subcommand(first) != nil
      {
        error.subcommand = first
      }
      throw error
    }
  }

  private static func parseArguments(_ arguments: [String]) throws -> Command {
    var positional: [String] = []
    var values: [String: String] = [:]
    var wantsHelp = false
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        positional += arguments[index...]
        break
      }
      guard argument.hasPrefix("-"), argument.count > 1 else {
        positional.append(argument)
        continue
      }
      var name = argument
      var inlineValue: String?
      if let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      switch name {
      case "-h", "--help":
        wantsHelp = true
        continue
      case "--version":
        return .version
      default:
        break
      }
      guard let option = CommandLineSpec.allOptions.first(where: { $0.name == name }) else {
        throw UsageError(message: "unknown option '\(argument)'", subcommand: positional.first)
      }
      if option.value == nil {
        if inlineValue != nil { throw UsageError(message: "'\(name)' takes no value") }
        values[name] = ""
      } else if let inlineValue {
        values[name] = inlineValue
      } else {
        // The next argument is the value, even if it starts with "-".
        guard index < arguments.endIndex else { throw UsageError(message: "missing value for '\(name)'") }
        values[name] = arguments[index]
        index += 1
      }
    }

    if wantsHelp { return .help(positional.first) }
    let name = positional.first ?? "progress"
    guard let subcommand = CommandLineSpec.subcommand(name) else {
      if Int(name) != nil {
        throw UsageError(message: "unknown subcommand '\(name)'. Did you mean 'check \(name)'?")
      }
      let guess = Command.subcommands.min { editDistance(name, $0) < editDistance(name, $1) }
      let suggestion = guess.flatMap { editDistance(name, $0) <= 2 ? " Did you mean '\($0)'?" : nil } ?? ""
      throw UsageError(message: "unknown subcommand '\(name)'.\(suggestion)")
    }

    // Options: each must be one the subcommand takes, with a valid value.
    for optionName in values.keys.sorted()
    where !subcommand.options.contains(where: { $0.name == optionName }) {
      let owners = CommandLineSpec.subcommands.filter { $0.options.contains { $0.name == optionName } }
        .map { "'\($0.name)'" }
      let list =
        owners.count > 1
        ? owners.dropLast().joined(separator: ", ") + " and " + owners.last! : owners.first ?? ""
      throw UsageError(
        message: "'\(optionName)' does not apply to '\(name)'" + (owners.isEmpty ? "" : " (only to \(list))"),
        subcommand: name)
    }
    var options = Options()
    options.solutions = values["--solutions"] != nil
    options.recordStarters = values["--record-starters"] != nil
    options.timeline = values["--timeline"] != nil
    if let text = values["--timeout"] {
      guard let seconds = Double(text), seconds >= 1, seconds <= 3600 else {
        throw UsageError(message: "'--timeout' takes a number of seconds from 1 to 3600, not '\(text)'")
      }
      options.timeLimit = seconds
    }
    var repeatCount = 1
    if let text = values["--repeat"] {
      guard let count = Int(text), (1...1000).contains(count) else {
        throw UsageError(message: "'--repeat' takes a whole number from 1 to 1000, not '\(text)'")
      }
      repeatCount = count
    }

    var jobs: Int?
    if let text = values["--jobs"] {
      guard let count = Int(text), (1...64).contains(count) else {
        throw UsageError(message: "'--jobs' takes a whole number from 1 to 64, not '\(text)'")
      }
      jobs = count
    }
    if let text = values["--report-dir"], text.trimmingCharacters(in: .whitespaces).isEmpty {
      throw UsageError(message: "'--report-dir' needs a folder")
    }

    // The positional argument.
    let rest = Array(positional.dropFirst())
    if !subcommand.repeats, rest.count > (subcommand.argument == nil ? 0 : 1) {
      throw UsageError(
        message: "unexpected argument '\(rest[subcommand.argument == nil ? 0 : 1])'", subcommand: name)
    }
    if let argument = subcommand.argument, rest.isEmpty, subcommand.withoutArgument == nil, name != "help",
      !(name == "reset" && values["--all"] != nil)
    {
      throw UsageError(
        message:
          "'\(name)' needs a \(argument.name), for example '\(name) \(name == "grade" ? "submissions/*" : "04")'",
        subcommand: name)
    }

    switch name {
    case "progress": return .progress(options)
    case "check": return .check(chapter: rest.first, options)
    case "watch": return .watch(chapter: rest.first, options)
    case "hint":
      return .hint(chapter: rest.first, reset: values["--reset"] != nil, exercise: values["--exercise"])
    case "solution": return .solution(chapter: rest.first, force: values["--force"] != nil)
    case "reset":
      if values["--all"] != nil, let chapter = rest.first {
        throw UsageError(message: "give a chapter or '--all', not both ('\(chapter)')", subcommand: name)
      }
      return .reset(chapter: rest.first, all: values["--all"] != nil)
    case "verify": return .verify(repeatCount: repeatCount, fixesOf: values["--fixes"], options)
    case "grade":
      return .grade(
        submissions: rest,
        ClassOptions(
          reportDirectory: values["--report-dir"] ?? CommandLineSpec.defaultReportDirectory, jobs: jobs,
          unsandboxed: values["--unsandboxed"] != nil, timeLimit: options.timeLimit))
    case "dev":
      guard let task = rest.first, devTasks.contains(task) else {
        throw UsageError(
          message: "unknown task '\(rest[0])' for 'dev'; the tasks are: \(devTasks.joined(separator: ", "))",
          subcommand: name)
      }
      return .dev(task: task)
    case "list": return .list
    default: return .help(rest.first)
    }
  }
}
