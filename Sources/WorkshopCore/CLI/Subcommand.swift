import Foundation

/// One of a runner's subcommands: a type with its own options, their
/// validation, and what it does. Help, usage lines and parsing all come
/// from its ``configuration`` (as with swift-argument-parser's
/// `ParsableCommand`, which the course cannot depend on):
///
///     struct ListCommand: Subcommand {
///       static let configuration = SubcommandConfiguration(
///         name: "list", summary: "List the chapters.")
///
///       init(parsing arguments: ParsedArguments) throws {}
///
///       func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
///         for chapter in workspace.curriculum.chapters { workshop.console.out(chapter.title) }
///         return Workshop.ExitCode.success
///       }
///     }
///
/// A runner lists its subcommands in a ``SubcommandTable``.
package protocol Subcommand: Sendable {
  /// Its name, help and options.
  static var configuration: SubcommandConfiguration { get }

  /// Reads the subcommand's arguments and options, already checked against
  /// its configuration (only its own options, each value given where one
  /// is needed, no more arguments than it takes); throws a ``UsageError``
  /// for values it does not accept.
  init(parsing arguments: ParsedArguments) throws

  /// Runs it in `workspace`, writing to `workshop`'s console; returns the
  /// exit status (``Workshop/ExitCode``).
  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32
}

/// What help and the parser know of a subcommand.
package struct SubcommandConfiguration: Sendable {
  /// `check`.
  var name: String
  /// One line, for the overview.
  package var summary: String
  /// The paragraph of its own help.
  package var discussion: String
  /// Its positional argument, if it takes one.
  package var argument: Argument?
  /// Its options, in the order help lists them.
  package var options: [Option]
  /// Whether it runs when no subcommand is given.
  var isDefault: Bool

  /// A positional argument.
  package struct Argument: Sendable {
    /// `chapter`.
    var name: String
    package var help: String
    /// What the subcommand does without it, when it may be left out.
    package var whenLeftOut: String?
    /// Whether it may be given more than once.
    var repeats: Bool

    package init(name: String, help: String, whenLeftOut: String? = nil, repeats: Bool = false) {
      self.name = name
      self.help = help
      self.whenLeftOut = whenLeftOut
      self.repeats = repeats
    }
  }

  package init(
    name: String, summary: String, discussion: String = "", argument: Argument? = nil,
    options: [Option] = [], isDefault: Bool = false
  ) {
    self.name = name
    self.summary = summary
    self.discussion = discussion
    self.argument = argument
    self.options = options
    self.isDefault = isDefault
  }
}

/// An option of a subcommand.
package struct Option: Sendable, Equatable {
  /// `--timeout`.
  var name: String
  /// The value's placeholder (`seconds`); nil for a flag.
  var value: String?
  package var help: String
  /// The default, as help shows it.
  package var defaultValue: String?

  package init(name: String, value: String? = nil, help: String, defaultValue: String? = nil) {
    self.name = name
    self.value = value
    self.help = help
    self.defaultValue = defaultValue
  }
}

extension Option {
  /// `--timeout`: the time limit for one chapter's grading, which every
  /// subcommand that grades takes (read with ``ParsedArguments/timeLimit()``).
  package static let timeout = Option(
    name: "--timeout", value: "seconds", help: "The time limit for one chapter's grading, from 1 to 3600.",
    defaultValue: String(Int(Grader.defaultTimeLimit)))
}

/// A subcommand's arguments and options as given, for its
/// ``Subcommand/init(parsing:)``.
package struct ParsedArguments: Sendable {
  /// The subcommand's name.
  var subcommand: String
  /// Its positional argument's name (`chapter`), if it takes one.
  var argumentName: String?
  /// The positional arguments after the subcommand's name.
  package var arguments: [String]
  /// The options given, by name: a flag's value is "".
  var values: [String: String]

  init(
    subcommand: String, argumentName: String? = nil, arguments: [String] = [], values: [String: String] = [:]
  ) {
    self.subcommand = subcommand
    self.argumentName = argumentName
    self.arguments = arguments
    self.values = values
  }

  /// The positional argument, if given.
  package var argument: String? { arguments.first }

  /// Whether the flag was given.
  package func flag(_ option: Option) -> Bool { values[option.name] != nil }

  /// The option's value, if given.
  package func value(_ option: Option) -> String? { values[option.name] }

  /// The option's value as a whole number in `range`, if given.
  package func wholeNumber(_ option: Option, in range: ClosedRange<Int>) throws -> Int? {
    try number(option, in: range, "a whole number from \(range.lowerBound) to \(range.upperBound)")
  }

  /// The option's value as a number of seconds in `range`, if given.
  func seconds(_ option: Option, in range: ClosedRange<Double>) throws -> Double? {
    try number(
      option, in: range, "a number of seconds from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
  }

  /// The option's value as a `Number` in `range`, if given; a usage error
  /// saying it takes `what` otherwise.
  private func number<Number: LosslessStringConvertible & Comparable>(
    _ option: Option, in range: ClosedRange<Number>, _ what: String
  ) throws -> Number? {
    guard let text = values[option.name] else { return nil }
    guard let number = Number(text), range.contains(number) else {
      throw UsageError(
        message: "'\(option.name)' takes \(what), not '\(text)'",
        chinese: "'\(option.name)' 的值应该是\(Self.chinese(what))，而不是 '\(text)'",
        subcommand: subcommand)
    }
    return number
  }

  /// The `--timeout` given (``Option/timeout``), if any.
  package func timeLimit() throws -> Double? { try seconds(.timeout, in: 1...3600) }

  /// A usage error about this subcommand, in English and, if given, in Chinese.
  package func error(_ message: String, chinese: String? = nil) -> UsageError {
    UsageError(message: message, chinese: chinese, subcommand: subcommand)
  }

  /// `what` an option takes, in Chinese: "a number of seconds from 1 to 3600" becomes "1 到 3600 之间的秒数".
  private static func chinese(_ what: String) -> String {
    guard let match = what.firstMatch(of: #/from (\d+) to (\d+)/#) else { return what }
    return what.hasPrefix("a number of seconds")
      ? "\(match.1) 到 \(match.2) 之间的秒数" : "\(match.1) 到 \(match.2) 之间的整数"
  }
}

/// A command line that cannot be run as written (exit status 64).
package struct UsageError: Error, Equatable, CustomStringConvertible {
  var message: String
  /// The same message in Chinese, shown when the runner speaks it.
  var chinese: String?
  /// The subcommand whose usage line to show with the error.
  var subcommand: String?

  init(message: String, chinese: String? = nil, subcommand: String? = nil) {
    self.message = message
    self.chinese = chinese
    self.subcommand = subcommand
  }

  package var description: String { message }

  /// The message in `language`.
  package func words(_ language: Language) -> String { language == .chinese ? chinese ?? message : message }
}
