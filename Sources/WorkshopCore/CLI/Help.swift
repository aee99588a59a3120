/// The help texts, in swift-argument-parser's layout, derived from the
/// command line's table (``CommandLineSpec``).
public enum Help {
  public static let version = "0.2.0"

  /// The tool's help.
  public static var overview: String {
    let defaultSubcommand = CommandLineSpec.subcommands.first { $0.isDefault }
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
    lines += (defaultSubcommand?.options ?? []).map(optionLine)
    lines.append(row("--version", "Show the version."))
    lines.append(row("-h, --help", "Show help information."))
    lines += ["", "SUBCOMMANDS:"]
    for subcommand in CommandLineSpec.subcommands where subcommand.name != "help" {
      let name =
        subcommand.name
        + (subcommand.argument.map { " " + argumentUsage($0.name, subcommand) } ?? "")
        + (subcommand.isDefault ? " (default)" : "")
      lines.append(row(name, subcommand.summary))
    }
    lines += ["", "  See 'workshop help <subcommand>' for detailed help."]
    return lines.joined(separator: "\n")
  }

  /// The help for one subcommand, or the overview; nil if there is no such subcommand.
  public static func text(for name: String?) -> String? {
    guard let name else { return overview }
    guard let subcommand = CommandLineSpec.subcommand(name) else { return nil }
    var lines = ["OVERVIEW: " + subcommand.summary]
    if !subcommand.discussion.isEmpty { lines += ["", subcommand.discussion] }
    lines += ["", "USAGE: " + usageLine(subcommand)]
    if let argument = subcommand.argument {
      let help = argument.help + (subcommand.withoutArgument.map { " Leave it out for \($0)." } ?? "")
      lines += ["", "ARGUMENTS:", row("<\(argument.name)>", help)]
    }
    lines += ["", "OPTIONS:"]
    lines += subcommand.options.map(optionLine)
    lines.append(row("-h, --help", "Show help information."))
    return lines.joined(separator: "\n")
  }

  /// The one-line usage shown under a usage error.
  public static func usage(for name: String?) -> String {
    guard let name, let subcommand = CommandLineSpec.subcommand(name) else {
      return "Usage: workshop [<subcommand>] [<options>]"
    }
    return "Usage: " + usageLine(subcommand)
  }

  private static func usageLine(_ subcommand: CommandLineSpec.Subcommand) -> String {
    var parts = ["workshop", subcommand.isDefault ? "[\(subcommand.name)]" : subcommand.name]
    if let argument = subcommand.argument { parts.append(argumentUsage(argument.name, subcommand)) }
    for option in subcommand.options {
      parts.append("[" + option.name + (option.value.map { " <\($0)>" } ?? "") + "]")
    }
    return parts.joined(separator: " ")
  }

  /// `<chapter>`, `[<chapter>]` when it may be left out, `<submission> ...` when repeated.
  private static func argumentUsage(_ name: String, _ subcommand: CommandLineSpec.Subcommand) -> String {
    let optional = subcommand.withoutArgument != nil || subcommand.name == "help"
    return (optional ? "[<\(name)>]" : "<\(name)>") + (subcommand.repeats ? " ..." : "")
  }

  private static func optionLine(_ option: CommandLineSpec.Option) -> String {
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
