/// A runner's subcommands, and the names it hands to another runner: the
/// one place a command line is parsed, and help and usage lines are made.
///
///     let table = SubcommandTable.learner
///     switch try table.parse(["check", "04", "--timeout", "60"]) {
///     case .run(let command): command.run(workshop, in: workspace)  // A `CheckCommand`.
///     case .help(let topic): print(table.help(for: topic) ?? "")
///     case .version, .handOff: ...
///     }
package struct SubcommandTable: Sendable {
  /// The subcommands this runner runs, in the order help lists them.
  var subcommands: [any Subcommand.Type]
  /// The subcommands it hands, with the whole command line, to the
  /// runner that holds them (see ``InstructorForwarding``), each with its
  /// one-line summary: the learner's runner compiles none of their code.
  var handedOff: [String]
  /// The Chinese of its help texts, by their English (a summary, a
  /// discussion, an option's or an argument's help): help in Chinese shows
  /// these, and the English of any text without one.
  var chinese: [String: String]

  package init(
    _ subcommands: [any Subcommand.Type], handedOff: [String] = [], chinese: [String: String] = [:]
  ) {
    self.subcommands = subcommands
    self.handedOff = handedOff
    self.chinese = chinese
  }

  /// What a command line asks for.
  enum Invocation {
    case run(any Subcommand)
    /// Help for one subcommand, or the overview (nil).
    case help(String?)
    case version
    /// A subcommand of ``handedOff``, to hand over as given.
    case handOff
  }

  /// The subcommand named `name`.
  func subcommand(_ name: String) -> (any Subcommand.Type)? {
    subcommands.first { $0.configuration.name == name }
  }

  /// Every subcommand's name, and `help`.
  var names: [String] { subcommands.map { $0.configuration.name } + handedOff + ["help"] }

  // MARK: - Parsing

  /// Parses the arguments after the program name.
  func parse(_ arguments: [String]) throws -> Invocation {
    let words = positional(in: arguments)
    // A handed-off subcommand's own options may come before its name, and
    // this runner cannot tell which of them take a value (`--repeat 3
    // verify`): its name, before any name of this runner's, hands it off.
    if let index = words.firstIndex(where: handedOff.contains),
      !words[..<index].contains(where: { subcommand($0) != nil || $0 == "help" })
    {
      return .handOff
    }
    if words.first == "help", words.count > 1, handedOff.contains(words[1]) { return .handOff }
    do {
      return try parseHere(arguments)
    } catch var error as UsageError {
      // Show the usage of the subcommand the user was typing, if any.
      if error.subcommand == nil, let first = words.first, subcommand(first) != nil {
        error.subcommand = first
      }
      throw error
    }
  }

  /// The arguments that are not options or their values: the subcommand's
  /// name first. An option this runner does not know is taken for a flag.
  private func positional(in arguments: [String]) -> [String] {
    let options = allOptions
    var words: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let argument = arguments[index]
      index += 1
      if argument == "--" { return words + arguments[index...] }
      guard argument.hasPrefix("-"), argument.count > 1 else {
        words.append(argument)
        continue
      }
      if !argument.contains("="), options.contains(where: { $0.name == argument && $0.value != nil }) {
        index += 1
      }
    }
    return words
  }

  private func parseHere(_ arguments: [String]) throws -> Invocation {
    var positional: [String] = []
    var values: [String: String] = [:]
    var wantsHelp = false
    let options = allOptions
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
      guard let option = options.first(where: { $0.name == name }) else {
        throw UsageError(
          message: "unknown option '\(argument)'", chinese: "没有选项 '\(argument)'", subcommand: positional.first
        )
      }
      if option.value == nil {
        if inlineValue != nil {
          throw UsageError(message: "'\(name)' takes no value", chinese: "'\(name)' 不接受值")
        }
        values[name] = ""
      } else if let inlineValue {
        values[name] = inlineValue
      } else {
        // The next argument is the value, even if it starts with "-".
        guard index < arguments.endIndex else {
          throw UsageError(message: "missing value for '\(name)'", chinese: "'\(name)' 缺少值")
        }
        values[name] = arguments[index]
        index += 1
      }
    }

    if wantsHelp { return .help(positional.first) }
    guard let name = positional.first ?? defaultSubcommand?.configuration.name else { return .help(nil) }
    let rest = Array(positional.dropFirst())
    if name == "help" {
      if rest.count > 1 {
        throw UsageError(
          message: "unexpected argument '\(rest[1])'", chinese: "多余的参数 '\(rest[1])'", subcommand: name)
      }
      return .help(rest.first)
    }
    guard let type = subcommand(name) else {
      if Int(name) != nil {
        throw UsageError(
          message: "unknown subcommand '\(name)'. Did you mean 'check \(name)'?",
          chinese: "没有子命令 '\(name)'。你是想用 'check \(name)' 吗？")
      }
      let guess = names.min { editDistance(name, $0) < editDistance(name, $1) }
      let close = guess.flatMap { editDistance(name, $0) <= 2 ? $0 : nil }
      throw UsageError(
        message: "unknown subcommand '\(name)'." + (close.map { " Did you mean '\($0)'?" } ?? ""),
        chinese: "没有子命令 '\(name)'。" + (close.map { "你是想用 '\($0)' 吗？" } ?? ""))
    }
    let configuration = type.configuration

    // Options: each must be one the subcommand takes.
    for optionName in values.keys.sorted()
    where !configuration.options.contains(where: { $0.name == optionName }) {
      let owners = subcommands.filter { $0.configuration.options.contains { $0.name == optionName } }
        .map { "'\($0.configuration.name)'" }
      let list =
        owners.count > 1
        ? owners.dropLast().joined(separator: ", ") + " and " + owners.last! : owners.first ?? ""
      throw UsageError(
        message: "'\(optionName)' does not apply to '\(name)'" + (owners.isEmpty ? "" : " (only to \(list))"),
        chinese: "'\(optionName)' 不能用于 '\(name)'" + (owners.isEmpty ? "" : "（只能用于 \(list)）"),
        subcommand: name)
    }
    // Arguments: as many as it takes; the subcommand decides whether it
    // may go without one (`reset --all`).
    let takes = configuration.argument.map { $0.repeats ? Int.max : 1 } ?? 0
    if rest.count > takes {
      throw UsageError(
        message: "unexpected argument '\(rest[takes])'", chinese: "多余的参数 '\(rest[takes])'", subcommand: name)
    }
    return .run(
      try type.init(
        parsing: ParsedArguments(
          subcommand: name, argumentName: configuration.argument?.name, arguments: rest, values: values)))
  }

  private var defaultSubcommand: (any Subcommand.Type)? { subcommands.first { $0.configuration.isDefault } }

  /// Every option some subcommand takes, once.
  private var allOptions: [Option] {
    var seen: Set<String> = []
    return subcommands.flatMap { $0.configuration.options }.filter { seen.insert($0.name).inserted }
  }
}

extension ParsedArguments {
  /// The positional argument, which the subcommand needs here: a usage
  /// error with an example when it is missing.
  package func required(example: String) throws -> String {
    guard let argument else {
      throw error(
        "'\(subcommand)' needs a \(argumentName ?? "argument"), for example '\(subcommand) \(example)'",
        chinese:
          "'\(subcommand)' 需要一个\(argumentName == "chapter" ? "章节" : "参数")，例如 '\(subcommand) \(example)'")
    }
    return argument
  }
}
