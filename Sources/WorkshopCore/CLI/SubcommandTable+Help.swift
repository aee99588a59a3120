/// The help texts, in swift-argument-parser's layout, made from the
/// subcommands' configurations.
extension SubcommandTable {
  /// The runner's version.
  static let version = "0.3.0"

  /// The tool's help, in `words`.
  func overview(_ words: Language = .english) -> String {
    let defaultSubcommand = subcommands.first { $0.configuration.isDefault }?.configuration
    var lines = [
      words("OVERVIEW: Grade your work on the Swift Concurrency Workshop.", "概述：给你在 Swift 并发工作坊里的练习评分。"),
      "",
      words(
        "Fix the broken code in Chapters/, then run this to see which checks pass,\nwhat failed and why, and what to do next.",
        "修好 Chapters/ 里有问题的代码，然后运行它，看看哪些检查通过了、\n哪些失败了以及为什么，还有下一步做什么。"),
      "",
      words("USAGE: ", "用法：") + "workshop [<subcommand>] [<options>]",
      "",
      words("OPTIONS:", "选项："),
    ]
    lines += (defaultSubcommand?.options ?? []).map { optionLine($0, words) }
    lines.append(Self.row(Language.option, say(Language.optionHelp, words)))
    lines.append(Self.row("--version", words("Show the version.", "显示版本。")))
    lines.append(Self.row("-h, --help", words("Show help information.", "显示帮助信息。")))
    lines += ["", words("SUBCOMMANDS:", "子命令：")]
    for subcommand in subcommands.map({ $0.configuration }) {
      let name =
        subcommand.name + (subcommand.argument.map { " " + Self.argumentUsage($0) } ?? "")
        + (subcommand.isDefault ? words(" (default)", "（默认）") : "")
      lines.append(Self.row(name, say(subcommand.summary, words)))
    }
    if !handedOff.isEmpty {
      lines.append(
        Self.row(
          handedOff.joined(separator: ", "),
          words(
            "The instructor's and the maintainer's commands, run by \(InstructorForwarding.product).",
            "讲师和维护者的命令，由 \(InstructorForwarding.product) 运行。")))
    }
    lines += [
      "",
      words("  See 'workshop help <subcommand>' for detailed help.", "  详细帮助见 'workshop help <subcommand>'。"),
    ]
    return lines.joined(separator: "\n")
  }

  /// The help for one subcommand in `words`, or the overview; nil if there is no such subcommand.
  func help(for name: String?, _ words: Language = .english) -> String? {
    guard let name else { return overview(words) }
    guard let subcommand = configuration(name) else { return nil }
    var lines = [words("OVERVIEW: ", "概述：") + say(subcommand.summary, words)]
    if !subcommand.discussion.isEmpty { lines += ["", say(subcommand.discussion, words)] }
    lines += ["", words("USAGE: ", "用法：") + Self.usageLine(subcommand)]
    if let argument = subcommand.argument {
      let help =
        say(argument.help, words)
        + (argument.whenLeftOut.map { words(" Leave it out for \($0).", "省略时表示\(say($0, words))。") } ?? "")
      lines += ["", words("ARGUMENTS:", "参数："), Self.row("<\(argument.name)>", help)]
    }
    lines += ["", words("OPTIONS:", "选项：")]
    lines += subcommand.options.map { optionLine($0, words) }
    lines.append(Self.row(Language.option, say(Language.optionHelp, words)))
    lines.append(Self.row("-h, --help", words("Show help information.", "显示帮助信息。")))
    return lines.joined(separator: "\n")
  }

  /// A help text in `words`: its Chinese from ``chinese`` (or the core's own,
  /// ``coreChinese``) when there is one, else the English.
  func say(_ english: String, _ words: Language) -> String {
    guard words == .chinese else { return english }
    return chinese[english] ?? Self.coreChinese[english] ?? english
  }

  /// The Chinese of the help texts the core itself defines.
  static let coreChinese: [String: String] = [
    Option.timeout.help: "评分一章的时间上限，1 到 3600 秒。",
    helpConfiguration.summary: "显示帮助信息。",
    helpConfiguration.argument!.help: "要解释的子命令。",
    helpConfiguration.argument!.whenLeftOut!: "概述",
    Language.optionHelp: "运行器说的语言：en、zh-Hans，或 auto（跟随 LANG）；会为这个检出副本记住。",
  ]

  /// The one-line usage shown under a usage error.
  package func usage(for name: String?, _ words: Language = .english) -> String {
    guard let name, let subcommand = configuration(name) else {
      return words("Usage: ", "用法：") + "workshop [<subcommand>] [<options>]"
    }
    return words("Usage: ", "用法：") + Self.usageLine(subcommand)
  }

  /// `help`'s own, which every table has.
  static let helpConfiguration = SubcommandConfiguration(
    name: "help", summary: "Show help information.",
    argument: .init(name: "subcommand", help: "The subcommand to explain.", whenLeftOut: "the overview"))

  /// The configuration of the subcommand `name`, `help` included.
  private func configuration(_ name: String) -> SubcommandConfiguration? {
    name == "help" ? Self.helpConfiguration : subcommand(name)?.configuration
  }

  private static func usageLine(_ subcommand: SubcommandConfiguration) -> String {
    var parts = ["workshop", subcommand.isDefault ? "[\(subcommand.name)]" : subcommand.name]
    if let argument = subcommand.argument { parts.append(argumentUsage(argument)) }
    for option in subcommand.options {
      parts.append("[" + option.name + (option.value.map { " <\($0)>" } ?? "") + "]")
    }
    return parts.joined(separator: " ")
  }

  /// `<chapter>`, `[<chapter>]` when it may be left out, `<submission> ...` when repeated.
  private static func argumentUsage(_ argument: SubcommandConfiguration.Argument) -> String {
    (argument.whenLeftOut != nil ? "[<\(argument.name)>]" : "<\(argument.name)>")
      + (argument.repeats ? " ..." : "")
  }

  private func optionLine(_ option: Option, _ words: Language) -> String {
    Self.row(
      option.name + (option.value.map { " <\($0)>" } ?? ""),
      say(option.help, words)
        + (option.defaultValue.map { words(" (default: \($0))", "（默认：\(say($0, words))）") } ?? ""))
  }

  /// "  --timeout <seconds>     The time limit…", wrapped as swift-argument-parser does,
  /// at 54 terminal columns (a Chinese character takes two, and a line may
  /// break between two of them).
  private static func row(_ label: String, _ text: String) -> String {
    let indent = String(repeating: " ", count: 26)
    var lines: [String] = []
    var current = ""
    for token in tokens(text) {
      let isSpace = token == " "
      if !current.isEmpty, !isSpace, Columns.width(of: current) + Columns.width(of: token) > 54 {
        lines.append(String(current.reversed().drop { $0 == " " }.reversed()))
        current = ""
      }
      if isSpace, current.isEmpty { continue }
      current += token
    }
    lines.append(current)
    let first = "  " + label
    let columns = Columns.width(of: first)
    let head =
      columns < 26
      ? first + String(repeating: " ", count: 26 - columns) + lines[0] : first + "\n" + indent + lines[0]
    return ([head] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
  }

  /// A help text's pieces a line may break between: words, single spaces,
  /// and each wide (Chinese) character on its own.
  private static func tokens(_ text: String) -> [String] {
    var tokens: [String] = []
    var word = ""
    for character in text {
      if character == " " || Columns.width(of: String(character)) == 2 {
        if !word.isEmpty { tokens.append(word) }
        word = ""
        tokens.append(String(character))
      } else {
        word.append(character)
      }
    }
    if !word.isEmpty { tokens.append(word) }
    return tokens
  }
}
