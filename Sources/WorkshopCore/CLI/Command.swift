/// A parsed command line.
public enum Command: Equatable, Sendable {
  /// Grade every chapter and show progress (the default).
  case progress(Options)
  /// Run one chapter's checks and explain each failure.
  case check(chapter: String, Options)
  /// Show the next hint for a chapter.
  case hint(chapter: String, reset: Bool)
  /// Check the course itself.
  case verify(repeatCount: Int, Options)
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
    /// The hard time limit for one chapter's checks, in seconds.
    public var timeLimit: Double = 60

    public init(solutions: Bool = false, timeLimit: Double = 60) {
      self.solutions = solutions
      self.timeLimit = timeLimit
    }
  }

  /// The subcommands, in the order help lists them.
  public static let subcommands = ["progress", "check", "hint", "verify", "list", "help"]
}

/// A command line that cannot be run as written (exit status 64).
public struct UsageError: Error, Equatable, CustomStringConvertible {
  public var message: String
  /// The subcommand whose usage line to show with the error.
  public var subcommand: String?

  public var description: String { message }
}

extension Command {
  /// Parses the arguments after the program name.
  public static func parse(_ arguments: [String]) throws -> Command {
    do {
      return try parseArguments(arguments)
    } catch var error as UsageError {
      // Show the usage of the subcommand the user was typing, if any.
      if error.subcommand == nil, let first = arguments.first(where: { !$0.hasPrefix("-") }),
        subcommands.contains(first)
      {
        error.subcommand = first
      }
      throw error
    }
  }

  private static func parseArguments(_ arguments: [String]) throws -> Command {
    var positional: [String] = []
    var options = Options()
    var repeatCount = 1
    var reset = false
    var wantsHelp = false
    var index = arguments.startIndex

    func value(for flag: String) throws -> String {
      let next = arguments.index(after: index)
      guard next < arguments.endIndex, !arguments[next].hasPrefix("-") else {
        throw UsageError(message: "missing value for '\(flag)'")
      }
      index = next
      return arguments[next]
    }

    while index < arguments.endIndex {
      let argument = arguments[index]
      var flag = argument
      var inlineValue: String?
      if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        flag = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      switch flag {
      case "-h", "--help":
        wantsHelp = true
      case "--version":
        return .version
      case "--solutions":
        options.solutions = true
      case "--reset":
        reset = true
      case "--timeout":
        let text = try inlineValue ?? value(for: flag)
        guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
          throw UsageError(message: "'--timeout' takes a number of seconds from 1 to 3600, not '\(text)'")
        }
        options.timeLimit = seconds
      case "--repeat":
        let text = try inlineValue ?? value(for: flag)
        guard let count = Int(text), (1...1000).contains(count) else {
          throw UsageError(
            message: "'--repeat' takes a whole number from 1 to 1000, not '\(text)'", subcommand: "verify")
        }
        repeatCount = count
      default:
        if argument.hasPrefix("-") && argument.count > 1 {
          throw UsageError(message: "unknown option '\(argument)'", subcommand: positional.first)
        }
        positional.append(argument)
      }
      index = arguments.index(after: index)
    }

    let subcommand = positional.first ?? "progress"
    if wantsHelp { return .help(positional.first) }
    let rest = Array(positional.dropFirst())

    func noMore(_ allowed: Int) throws {
      guard rest.count <= allowed else {
        throw UsageError(message: "unexpected argument '\(rest[allowed])'", subcommand: subcommand)
      }
    }
    func chapterArgument() throws -> String {
      guard let chapter = rest.first else {
        throw UsageError(
          message: "'\(subcommand)' needs a chapter, for example '\(subcommand) 04'", subcommand: subcommand)
      }
      try noMore(1)
      return chapter
    }
    func rejectFlags(_ allowed: Set<String>) throws {
      if !allowed.contains("--solutions"), options.solutions {
        throw UsageError(message: "'--solutions' does not apply to '\(subcommand)'", subcommand: subcommand)
      }
      if !allowed.contains("--reset"), reset {
        throw UsageError(message: "'--reset' only applies to 'hint'", subcommand: subcommand)
      }
      if !allowed.contains("--repeat"), repeatCount != 1 {
        throw UsageError(message: "'--repeat' only applies to 'verify'", subcommand: subcommand)
      }
    }

    switch subcommand {
    case "progress":
      try noMore(0)
      try rejectFlags(["--solutions"])
      return .progress(options)
    case "check":
      let chapter = try chapterArgument()
      try rejectFlags(["--solutions"])
      return .check(chapter: chapter, options)
    case "hint":
      let chapter = try chapterArgument()
      try rejectFlags(["--reset"])
      return .hint(chapter: chapter, reset: reset)
    case "verify":
      try noMore(0)
      try rejectFlags(["--repeat"])
      return .verify(repeatCount: repeatCount, options)
    case "list":
      try noMore(0)
      try rejectFlags([])
      return .list
    case "help":
      try noMore(1)
      return .help(rest.first)
    default:
      if Int(subcommand) != nil {
        throw UsageError(
          message: "unknown subcommand '\(subcommand)'. Did you mean 'check \(subcommand)'?")
      }
      let guess = Command.subcommands.min { editDistance(subcommand, $0) < editDistance(subcommand, $1) }
      let suggestion =
        guess.flatMap { editDistance(subcommand, $0) <= 2 ? " Did you mean '\($0)'?" : nil } ?? ""
      throw UsageError(message: "unknown subcommand '\(subcommand)'.\(suggestion)")
    }
  }
}
