import Foundation
import WorkshopCore

/// `verify`'s portability check, run on Linux for the Mac it cannot build on:
/// code that compiles on one platform only must sit in a branch guarded for
/// that platform, and an API that needs a newer macOS than `Package.swift`
/// declares must not be used at all.
///
/// It reads source text line by line, skipping comments and multi-line and
/// raw string literals: a short list of rules, each with its reason, not a
/// compiler. A rule that fires wrongly is fixed here, not
/// silenced where it fires.
enum Portability {
  /// The platforms the course runs on.
  enum Platform: String, Sendable {
    case linux = "Linux"
    case macOS = "macOS"
  }

  /// One thing that compiles or behaves on one platform only.
  struct Rule: Sendable {
    var name: String
    /// A regular expression matched against each line, comments removed.
    var pattern: String
    /// The only platform it exists on: a use must sit in a branch guarded for it.
    var onlyOn: Platform?
    /// The macOS major version it needs: a use needs that platform declared.
    var macOS: Int?
    var reason: String
  }

  /// A use that breaks a rule.
  struct Finding: Sendable, Equatable, CustomStringConvertible {
    var path: String
    var line: Int
    var rule: String
    var reason: String

    var description: String { "\(path):\(line): \(rule): \(reason)" }
  }

  /// The rules, each with the reason it exists.
  static let rules: [Rule] = [
    Rule(
      name: "glibc", pattern: #"^\s*import\s+(Glibc|Musl)\b"#, onlyOn: .linux,
      reason: "Glibc is Linux's C library; on macOS the same functions come from Darwin"),
    Rule(
      name: "darwin", pattern: #"^\s*import\s+Darwin\b"#, onlyOn: .macOS,
      reason: "Darwin exists on Apple platforms only; Linux has Glibc"),
    Rule(
      name: "proc-filesystem", pattern: #""/proc/"#, onlyOn: .linux,
      reason: "/proc is Linux's process file system; macOS has none (`ps` answers on both)"),
    Rule(
      name: "tool-paths", pattern: #""/bin/(true|false|gzip|gunzip|which|timeout|readlink)\b"#,
      onlyOn: .linux,
      reason:
        "Linux keeps this tool in /bin; macOS has it in /usr/bin or not at all (`/usr/bin/true` is on both)"),
    Rule(
      name: "spawn-types", pattern: #"\bposix_spawn(_file_actions|attr)_t\s*\(\s*\)"#, onlyOn: .linux,
      reason: "a struct on Glibc but an optional pointer on Darwin, where it starts as nil"),
    Rule(
      name: "pthread-value", pattern: #"\bpthread_t\s*\(\s*\)"#, onlyOn: .linux,
      reason: "an integer on Glibc but a non-optional pointer on Darwin"),
    Rule(
      name: "linux-interfaces",
      pattern:
        #"\b(epoll_\w+|inotify_\w+|eventfd|signalfd|timerfd_\w+|prctl|sched_setaffinity|pipe2|SIGRTMIN|SIGRTMAX|SIGPWR|SIGSTKFLT)\b"#,
      onlyOn: .linux, reason: "a Linux system interface that macOS does not have"),
    Rule(
      name: "bubblewrap", pattern: #""bwrap""#, onlyOn: .linux,
      reason: "bubblewrap is Linux-only; on macOS grading runs unsandboxed"),
    Rule(
      name: "synchronization", pattern: #"\b(Mutex|Atomic)\s*[<(]|^\s*import\s+Synchronization\b"#, macOS: 15,
      reason: "Synchronization's Mutex and Atomic are available from macOS 15"),
    Rule(
      name: "task-executors",
      pattern:
        #"\b(withTaskExecutorPreference|TaskExecutor|globalConcurrentExecutor)\b|\bexecutorPreference\s*:"#,
      macOS: 15, reason: "task executors (SE-0417) are available from macOS 15"),
    Rule(
      name: "macos-26",
      pattern: #"\bTask\.immediate\b|\bInlineArray\b|\bObservations\b|\bTask\s*\(\s*name\s*:"#,
      macOS: 26, reason: "available from macOS 26 only"),
  ]

  /// The macOS major version a manifest declares in `platforms`, if any.
  static func declaredMacOS(inManifest text: String) -> Int? {
    let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { stripComment(String($0)) }
      .joined(separator: "\n")
    guard let match = code.firstMatch(of: /\.macOS\(\s*(?:\.v(\d+)|"(\d+))/) else { return nil }
    return Int(match.output.1 ?? match.output.2 ?? "")
  }

  /// The findings in one source file, against the macOS version its package declares.
  static func findings(inSource text: String, path: String, declaredMacOS: Int?) -> [Finding] {
    let compiled = rules.map { rule in (rule, try! Regex(rule.pattern)) }
    var branches = BranchStack()
    var findings: [Finding] = []
    var inMultilineString = false
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      // Multi-line and raw string literals are text (messages, patterns,
      // sources in tests), not code.
      if rawLine.ranges(of: "\"\"\"").count % 2 == 1 {
        inMultilineString.toggle()
        continue
      }
      if inMultilineString { continue }
      let line = stripComment(String(rawLine).replacing(/#"(.*?)"#/, with: "#\"\"#"))
      if branches.read(line) { continue }
      for (rule, regex) in compiled where line.contains(regex) {
        if let platform = rule.onlyOn, branches.isGuarded(for: platform) { continue }
        if let needed = rule.macOS {
          if (declaredMacOS ?? 0) >= needed || branches.isGuarded(for: .linux) { continue }
          if text.contains("available(macOS \(needed)") { continue }
        }
        findings.append(Finding(path: path, line: index + 1, rule: rule.name, reason: rule.reason))
      }
    }
    return findings
  }

  /// The findings in a package: its manifest and every Swift file under
  /// `folders`, each file against the nearest `Package.swift` above it.
  static func findings(inPackage root: URL, folders: [String]) -> [Finding] {
    var findings: [Finding] = []
    var manifests: [String: Int?] = [:]
    func declared(for file: URL) -> Int? {
      var folder = file.deletingLastPathComponent()
      while folder.path.hasPrefix(root.path) {
        let manifest = folder.appendingPathComponent("Package.swift")
        if let known = manifests[manifest.path] { return known }
        if let text = try? String(contentsOf: manifest, encoding: .utf8) {
          let version = declaredMacOS(inManifest: text)
          manifests[manifest.path] = version
          return version
        }
        folder = folder.deletingLastPathComponent()
      }
      return nil
    }
    var paths = ["Package.swift"]
    for folder in folders {
      paths += Files.under(root.appendingPathComponent(folder), suffix: ".swift").map { folder + "/" + $0 }
    }
    for path in paths.sorted() {
      let url = root.appendingPathComponent(path)
      guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
      findings += Self.findings(inSource: text, path: path, declaredMacOS: declared(for: url))
    }
    return findings
  }

  /// The line without its `//` comment; a `//` inside a string literal stays.
  static func stripComment(_ line: String) -> String {
    var inString = false
    var previous: Character = " "
    var index = line.startIndex
    while index < line.endIndex {
      let character = line[index]
      if character == "\"" && previous != "\\" { inString.toggle() }
      if !inString && character == "/" && previous == "/" {
        return String(line[..<line.index(before: index)])
      }
      previous = character
      index = line.index(after: index)
    }
    return line
  }

  /// The `#if` branches around the current line.
  private struct BranchStack {
    /// Per open `#if`: the conditions of the branches before this one, and
    /// this branch's condition (nil in `#else`).
    private var frames: [(earlier: [String], current: String?)] = []

    /// Reads a compiler-directive line; returns whether it was one.
    mutating func read(_ line: String) -> Bool {
      let text = line.trimmingCharacters(in: .whitespaces)
      if text.hasPrefix("#if ") {
        frames.append(([], String(text.dropFirst(4))))
      } else if text.hasPrefix("#elseif "), var frame = frames.popLast() {
        frame.earlier += frame.current.map { [$0] } ?? []
        frame.current = String(text.dropFirst(8))
        frames.append(frame)
      } else if text.hasPrefix("#else"), var frame = frames.popLast() {
        frame.earlier += frame.current.map { [$0] } ?? []
        frame.current = nil
        frames.append(frame)
      } else if text.hasPrefix("#endif") {
        _ = frames.popLast()
      } else {
        return false
      }
      return true
    }

    /// Whether the line is compiled only for `platform`: a branch names it,
    /// or follows a branch that named the other platform.
    func isGuarded(for platform: Platform) -> Bool {
      let other: Platform = platform == .linux ? .macOS : .linux
      return frames.contains { frame in
        if let current = frame.current, Self.names(platform, in: current) { return true }
        return frame.earlier.contains { Self.names(other, in: $0) }
      }
    }

    private static func names(_ platform: Platform, in condition: String) -> Bool {
      let markers =
        platform == .linux
        ? ["os(Linux)", "canImport(Glibc)", "canImport(Musl)"]
        : ["os(macOS)", "canImport(Darwin)", "os(iOS)", "os(tvOS)", "os(watchOS)", "os(visionOS)"]
      return markers.contains { marker in
        guard let range = condition.range(of: marker) else { return false }
        return !condition[..<range.lowerBound].hasSuffix("!")
      }
    }
  }
}
