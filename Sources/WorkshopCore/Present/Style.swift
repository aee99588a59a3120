import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Terminal styling: colour only on a terminal, never with `NO_COLOR`.
public struct Style: Sendable {
  /// Whether escape codes are written.
  public var colored: Bool

  public init(colored: Bool) {
    self.colored = colored
  }

  /// The style for standard output in this environment.
  public static func forStandardOutput(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> Style {
    let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
    let dumb = environment["TERM"] == "dumb"
    return Style(colored: isatty(STDOUT_FILENO) == 1 && !noColor && !dumb)
  }

  private func wrap(_ text: String, _ code: String) -> String {
    colored ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  public func bold(_ text: String) -> String { wrap(text, "1") }
  public func dim(_ text: String) -> String { wrap(text, "2") }
  public func green(_ text: String) -> String { wrap(text, "32") }
  public func red(_ text: String) -> String { wrap(text, "31") }
  public func yellow(_ text: String) -> String { wrap(text, "33") }
  public func cyan(_ text: String) -> String { wrap(text, "36") }

  /// A command to type: bold on a terminal, in backticks otherwise.
  public func command(_ text: String) -> String {
    colored ? bold(text) : "`\(text)`"
  }

  /// The mark for a passing or failing check.
  public func mark(_ passed: Bool) -> String {
    passed ? green("✓") : red("✗")
  }
}
