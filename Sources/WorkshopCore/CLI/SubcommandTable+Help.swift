/// The help texts, in swift-argument-parser's layout, made from the
/// subcommands' configurations.
extension SubcommandTable {
  /// The runner's version.
  static let version = "0.3.0"

  /// The tool's help.
  var overview: String {
    let defaultSubcommand = subcommands.first { $0.configuration.isDefault }?.configuration
    var lines = [
      "OVERVIEW: Grade your work on the Swift Concurrency Workshop.",
      "",
      "Fix the broken code in Chapters/, then run this to see which checks pass,",
      "what failed and why, and what to do next.",
      "",
      "USAGE: workshop [<subcommand>] [<options>]",
      "",
      "OPTIONS:",
    ]
    lines += (defaultSubcommand?.options ?? []).map(Self.optionLine)
    lines.append(Self.row("--version", "Show the version."))
    lines.append(Self.row("-h, --help", "Show help information."))
    lines += ["", "SUBCOMMANDS:"]
    for subcommand in subcommands.map({ $0.configuration }) {
      let name =
        subcommand.name + (subcommand.argument.map { " " + Self.argumentUsage($0) } ?? "")
        + (subcommand.isDefault ? " (default)" : "")
      lines.append(Self.row(name, subcommand.summary))
    }
    if !handedOff.isEmpty {
      lines.append(
        Self.row(
          handedOff.joined(separator: ", "),
          "The instructor's and the maintainer's commands, run by \(InstructorForwarding.product)."))
    }
    lines += ["", "  See 'workshop help <subcommand>' for detailed help."]
    return lines.joined(separator: "\n")
  }

  /// The help for one subcommand, or the overview; nil if there is no such subcommand.
  func help(for name: String?) -> String? {
    guard let name else { return overview }
    guard let subcommand = configuration(name) else { return nil }
    var lines = ["OVERVIEW: " + subcommand.summary]
    if !subcommand.discussion.isEmpty { lines += ["", subcommand.discussion] }
    lines += ["", "USAGE: " + Self.usageLine(subcommand)]
    if let argument = subcommand.argument {
      let help = argument.help + (argument.whenLeftOut.map { " Leave it out for \($0)." } ?? "")
      lines += ["", "ARGUMENTS:", Self.row("<\(argument.name)>", help)]
    }
    lines += ["", "OPTIONS:"]
    lines += subcommand.options.map(Self.optionLine)
    lines.append(Self.row("-h, --help", "Show help information."))
    return lines.joined(separator: "\n")
  }

  /// The one-line usage shown under a usage error.
  package func usage(for name: String?) -> String {
    guard let name, let subcommand = configuration(name) else {
      return "Usage: workshop [<subcommand>] [<options>]"
    }
    return "Usage: " + Self.usageLine(subcommand)
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

  private static func optionLine(_ option: Option) -> String {
    row(
      option.name + (option.value.map { " <\($0)>" } ?? ""),
      option.help + (option.defaultValue.map { " (default: \($0))" } ?? ""))
  }

  /// "  --timeout <seconds>     The time limit…", wrapped as swift-argument-parser does.
  private static func row(_ label: String, _ text: String) -> String {
    let indent = String(repeating: " ", count: 26)
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
      if !current.isEmpty, current.count + word.count + 1 > 54 {
        lines.append(current)
        current = ""
      }
      current += (current.isEmpty ? "" : " ") + word
    }
    lines.append(current)
    let first = "  " + label
    let head =
      first.count < 26
      ? first + String(repeating: " ", count: 26 - first.count) + lines[0] : first + "\n" + indent + lines[0]
    return ([head] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
  }
}
