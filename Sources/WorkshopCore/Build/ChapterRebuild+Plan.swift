import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ChapterRebuild {
  /// The path with every link resolved (macOS's `/tmp` is `/private/tmp`).
  static func realPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  // MARK: - The plan

  /// One shell command of SwiftPM's build plan.
  struct PlannedCommand: Equatable {
    var inputs: [String]
    var outputs: [String]
    var arguments: [String]
  }

  /// SwiftPM's build plan (`debug.yaml`), split into its commands once:
  /// a round looks up a dozen of them.
  struct Plan {
    /// Each command's key, and the lines of its block.
    private var blocks: [(name: Substring, fields: [Substring])] = []

    init(_ text: String) {
      for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        let line = Substring(line)
        if line.hasPrefix("  \""), line.hasSuffix("\":") {
          blocks.append((line.dropFirst(3).dropLast(2), []))
        } else if !blocks.isEmpty {
          blocks[blocks.count - 1].fields.append(line)
        }
      }
    }

    /// The shell command whose key starts with `key` and ends with `suffix`
    /// (`"C.DebouncedSearch-x86_64-unknown-linux-gnu-debug.module":`), with
    /// the flags that only serve SwiftPM itself left out: its JSON progress
    /// (learners need the compiler's own words), incremental mode (the whole
    /// module is compiled) and the index for editors.
    func command(key: String, suffix: String) -> PlannedCommand? {
      var found: PlannedCommand?
      for block in blocks where block.name.hasPrefix(key) && block.name.hasSuffix(suffix) {
        var inputs: [String] = []
        var outputs: [String] = []
        for line in block.fields {
          let field = line.trimmingCharacters(in: .whitespaces)
          func list(_ prefix: String) -> [String]? {
            guard field.hasPrefix(prefix) else { return nil }
            return try? JSONDecoder().decode([String].self, from: Data(field.dropFirst(prefix.count).utf8))
          }
          if let value = list("inputs: ") { inputs = value }
          if let value = list("outputs: ") { outputs = value }
          if let arguments = list("args: "), !arguments.isEmpty {
            // Two matches: the key is ambiguous, and the quick path does not guess.
            guard found == nil else { return nil }
            found = PlannedCommand(
              inputs: inputs, outputs: outputs, arguments: ChapterRebuild.strip(arguments))
          }
        }
      }
      return found
    }
  }

  fileprivate static func strip(_ arguments: [String]) -> [String] {
    var kept: [String] = []
    var skipNext = false
    for argument in arguments {
      if skipNext {
        skipNext = false
        continue
      }
      switch argument {
      case "-parseable-output", "-incremental": continue
      case "-index-store-path":
        skipNext = true
        continue
      default: kept.append(argument)
      }
    }
    return kept
  }

  /// The Swift files under `folder`, as absolute paths.
  static func swiftFiles(in folder: String) -> [String] {
    Files.under(URL(fileURLWithPath: folder), suffix: ".swift").map { folder + "/" + $0 }
  }

  // MARK: - What changed

  /// The modules with a file whose content differs from the last build's;
  /// nil when a file outside every one of them does (not their change alone).
  static func changed(
    _ modules: [Module], states: [String: Fingerprint.FileState], record: Fingerprint.Record
  )
    -> [Module]?
  {
    let now = states.mapValues(\.hash)
    let last = record.inputs
    var changed = Set<String>()
    for path in Set(now.keys).union(last.keys) where now[path] != last[path] {
      guard let module = modules.first(where: { path.hasPrefix($0.folder + "/") }) else { return nil }
      changed.insert(module.name)
    }
    return modules.filter { changed.contains($0.name) }
  }
}
