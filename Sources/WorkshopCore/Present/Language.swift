import Foundation

/// The language the runner speaks to the learner: English, or Simplified
/// Chinese (`zh-Hans`).
///
/// Each sentence the runner prints is written once, in both languages, where
/// it is printed; calling the language picks one. A sentence without its
/// Chinese does not compile:
///
/// ```swift
/// let words = Language.chinese
/// words("Next:", "下一步：")                  // "下一步："
/// words("\(n) checks pass.", "\(n) 项检查通过。")
/// ```
///
/// Check names, code, identifiers, commands and the compiler's output are
/// never translated: they are what the learner types or searches for.
package enum Language: String, Sendable, CaseIterable, Codable {
  case english = "en"
  case chinese = "zh-Hans"

  /// The sentence in this language.
  package func callAsFunction(_ english: String, _ chinese: String) -> String {
    switch self {
    case .english: english
    case .chinese: chinese
    }
  }

  /// The language a `--lang` value or a locale name (`zh_CN.UTF-8`,
  /// `zh-Hans-CN`, `en_US`) names; nil for one the course has no words in
  /// (Traditional Chinese included: `zh_TW`, `zh-Hant`).
  package init?(naming name: String) {
    let tag =
      name.split(separator: ".").first.map(String.init)?
      .replacingOccurrences(of: "_", with: "-").lowercased() ?? ""
    let parts = tag.split(separator: "-").map(String.init)
    switch parts.first {
    case "en": self = .english
    case "zh":
      // zh, zh-CN, zh-SG, zh-Hans…: Simplified; zh-TW, zh-HK, zh-MO, zh-Hant…: not.
      let traditional: Set<String> = ["hant", "tw", "hk", "mo"]
      guard !parts.dropFirst().contains(where: traditional.contains) else { return nil }
      self = .chinese
    default: return nil
    }
  }

  /// The language the environment asks for: the first of `LC_ALL`,
  /// `LC_MESSAGES` and `LANG` that is set, as POSIX orders them; on a Mac
  /// with none set (a program run from Xcode), the system's first preferred
  /// language. English for any other.
  package static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> Language {
    for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
      if let value = environment[name], !value.isEmpty { return Language(naming: value) ?? .english }
    }
    #if canImport(Darwin)
      if let preferred = Locale.preferredLanguages.first { return Language(naming: preferred) ?? .english }
    #endif
    return .english
  }

  /// The choice `--lang` remembers for the checkout, in `.workshop/`.
  package struct Remembered: Sendable {
    /// The workshop's own folder (``Workspace/stateDirectory``).
    package var directory: URL

    package init(directory: URL) { self.directory = directory }

    private var file: URL { directory.appendingPathComponent("language") }

    /// The remembered language; nil when none is, or the file holds
    /// anything else (read as any file of the checkout the runner reads:
    /// a small regular file, never through a link).
    package func load() -> Language? {
      guard let bytes = Files.readRegularFile(file, atMost: 64) else { return nil }
      return Language(
        rawValue: String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Remembers `language`; nil forgets, so that the environment decides again.
    package func save(_ language: Language?) throws {
      guard let language else {
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        return
      }
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try Data((language.rawValue + "\n").utf8).write(to: file, options: .atomic)
    }
  }

  /// The option, as help lists it with every subcommand.
  package static let option = "--lang <language>"

  /// Its help.
  package static let optionHelp =
    "The language the runner speaks: en, zh-Hans, or auto (as LANG says); remembered for this checkout."

  /// What `--lang` can be given, as help and errors list it.
  package static let choices = "en, zh-Hans (or zh, zh-CN), auto"

  /// The language a run speaks: the one `choice` names; else, unless it is
  /// `auto`, the one `remembered` for the checkout; else the environment's.
  package static func chosen(
    _ choice: Choice?, remembered: Language?, environment: [String: String]
  ) -> Language {
    switch choice {
    case .language(let language)?: language
    case .auto?: fromEnvironment(environment)
    case nil: remembered ?? fromEnvironment(environment)
    }
  }

  /// `--lang`'s value: a language, or `auto` (nil) to forget the remembered one.
  package enum Choice: Equatable, Sendable {
    case language(Language)
    case auto
  }

  /// Takes `--lang <value>` or `--lang=<value>` out of a command line, before
  /// any `--`: the option goes with every subcommand, before or after its name.
  /// - Returns: the arguments without it, and the choice; nil when absent.
  /// - Throws: a ``UsageError`` for a missing or unknown value.
  package static func takeOption(from arguments: [String]) throws -> (arguments: [String], choice: Choice?) {
    var rest: [String] = []
    var choice: Choice?
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        rest += arguments[(index - 1)...]
        break
      }
      let value: String
      if argument == "--lang" {
        guard index < arguments.endIndex else {
          throw UsageError(
            message: "missing value for '--lang' (one of: \(choices))", chinese: "'--lang' 缺少值（可选：\(choices)）"
          )
        }
        value = arguments[index]
        index += 1
      } else if argument.hasPrefix("--lang=") {
        value = String(argument.dropFirst("--lang=".count))
      } else {
        rest.append(argument)
        continue
      }
      if value == "auto" {
        choice = .auto
      } else if let language = Language(naming: value) {
        choice = .language(language)
      } else {
        throw UsageError(
          message: "unknown language '\(value)' for '--lang' (one of: \(choices))",
          chinese: "'--lang' 不认识语言 '\(value)'（可选：\(choices)）")
      }
    }
    return (rest, choice)
  }
}
