import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Terminal styling: colour only on a terminal, never with `NO_COLOR`.
package struct Style: Sendable {
  /// Whether escape codes are written.
  var colored: Bool

  /// The style for standard output in this environment.
  static func forStandardOutput(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> Style {
    let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
    let dumb = environment["TERM"] == "dumb"
    return Style(colored: isatty(STDOUT_FILENO) == 1 && !noColor && !dumb)
  }

  private func wrap(_ text: String, _ code: String) -> String {
    colored ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  package func bold(_ text: String) -> String { wrap(text, "1") }
  package func dim(_ text: String) -> String { wrap(text, "2") }
  package func green(_ text: String) -> String { wrap(text, "32") }
  package func red(_ text: String) -> String { wrap(text, "31") }
  package func yellow(_ text: String) -> String { wrap(text, "33") }
  package func cyan(_ text: String) -> String { wrap(text, "36") }

  /// A command to type: bold on a terminal, in backticks otherwise.
  package func command(_ text: String) -> String {
    colored ? bold(text) : "`\(text)`"
  }

  /// The mark for a passing or failing check.
  package func mark(_ passed: Bool) -> String {
    passed ? green("✓") : red("✗")
  }
}
