import Foundation

/// Finds, in a submission's Swift files, what no exercise of the course
/// needs and what code that games a grader would use: it does not change a
/// grade, it asks a person to look ("needs review").
///
/// The checks run sandboxed; this is the second line, for what a sandbox
/// cannot judge (a check that reads its own test file on macOS) and for an
/// instructor who graded `--unsandboxed`.
package enum ReviewScan {
  /// One finding: where, and what it is.
  package struct Flag: Sendable, Equatable, Codable {
    /// `Chapters/04-DebouncedSearch/SearchModel.swift:12`.
    package var location: String
    /// What was found, in plain words: "reads the environment".
    package var reason: String
    /// The line, trimmed.
    var code: String

    package var description: String { "\(location): \(reason): \(code)" }

    package init(location: String, reason: String, code: String) {
      self.location = location
      self.reason = reason
      self.code = code
    }
  }

  /// What to look for, each with what it means. Matched against code with
  /// comments and string literals' contents removed.
  /// C functions are matched only as free functions (`kill(` but not
  /// `task.kill(`). Word boundaries are simple ones: by Unicode's rules,
  /// `CommandLine.arguments` would be one word.
  static let sources: [(pattern: String, reason: String)] = [
    (#"\bCommandLine\b"#, "reads the command line"),
    (
      #"\bProcessInfo\b|(?:^|[^.\w])(?:get|set|unset|put)env\s*\(|\benviron\b"#,
      "reads or changes the environment"
    ),
    (#"(?:^|[^.\w])(?:exit|_exit)\s*\(|\b(?:atexit|at_quick_exit)\b"#, "ends the process or hooks its exit"),
    (
      #"(?:^|[^.\w])(?:kill|killpg|sigaction|pthread_kill|sigprocmask)\s*\(|(?:^|[^.\w])(?:raise|signal)\s*\(\s*SIG"#,
      "sends or handles signals"
    ),
    (
      #"\bProcess\s*\(|\bNSTask\b|\bposix_spawn\w*|(?:^|[^.\w])(?:v?fork|popen|system|exec[lv]p?e?)\s*\("#,
      "starts a process"
    ),
    (
      #"\bFileManager\b|\bFileHandle\b|\.write\s*\(\s*to(?:File)?\s*:|(?:^|[^.\w])(?:fopen|freopen|open|openat|creat|unlink|ftruncate|mkdir|rmdir|fwrite|realpath|readlink|opendir|scandir|n?ftw|glob)\s*\("#,
      "reads or writes files"
    ),
    (
      #"\bFileDescriptor\b|(?:^|[^.\w])(?:dup[23]?|fcntl|lseek|closefrom|pipe)\s*\(|(?:^|[^.\w])close\s*\(\s*[^)\s]"#,
      "uses file descriptors"
    ),
    (
      #"\bUnsafe(?:Mutable)?(?:Raw)?(?:Buffer)?Pointer\b|\bOpaquePointer\b|\bwithUnsafe(?:Mutable)?(?:Bytes|BufferPointer|Pointer)\b|\b(?:withMemoryRebound|assumingMemoryBound|bindMemory|unsafeAddress)\b"#,
      "reaches raw memory (unsafe pointers)"
    ),
    (#"\b(?:Data|String|NSString)\s*\(\s*contentsOf"#, "reads files"),
    (#"#(?:file|filePath|fileID)\b"#, "uses its own source file's path"),
    (#"(?:^|[^.\w])(?:dlopen|dlsym|dladdr)\s*\("#, "loads code or looks up symbols at run time"),
    (#"@_cdecl\b|@_silgen_name\b|@_section\b|@_used\b|@_extern\b"#, "defines or replaces symbols by name"),
    (#"\bunsafeBitCast\s*\(|@convention\s*\(\s*c\s*\)"#, "casts unsafely (function pointers or types)"),
    (
      #"(?:^|[^.\w])(?:mprotect|mmap|ptrace|setrlimit|prctl|syscall)\s*\("#,
      "calls into the operating system directly"
    ),
    (#"\bURLSession\b|(?:^|[^.\w])socket\s*\("#, "uses the network"),
  ]

  /// The patterns, compiled once. Written as raw strings: they name system
  /// calls as text, which the portability check must not take for calls.
  nonisolated(unsafe) static let patterns: [(Regex<AnyRegexOutput>, String)] = sources.map {
    (try! Regex($0.pattern).wordBoundaryKind(.simple), $0.reason)
  }

  /// The flags for `sources` (paths relative to the submission, to text).
  package static func scan(_ sources: [String: String]) -> [Flag] {
    var flags: [Flag] = []
    for path in sources.keys.sorted() {
      let text = sources[path]!.replacingOccurrences(of: "\r\n", with: "\n")
      let lines = code(of: text)
      let originals = text.split(separator: "\n", omittingEmptySubsequences: false)
      for (index, line) in lines.enumerated() {
        for (pattern, reason) in patterns
        where line.matches(of: pattern).contains(where: { !declares($0.range, in: line) }) {
          let original = index < originals.count ? originals[index] : ""
          flags.append(
            Flag(
              location: "\(path):\(index + 1)", reason: reason,
              code: String(original.trimmingCharacters(in: .whitespaces).prefix(120))))
        }
      }
    }
    return flags
  }

  /// Whether a match is the name of a function being declared (`func
  /// open(_ photo: Photo)`): a method of the learner's own that shares a C
  /// function's name is no call to it.
  static func declares(_ range: Range<String.Index>, in line: String) -> Bool {
    line[..<range.lowerBound].split(separator: " ").last == "func"
  }

  /// The lines of `text` as code: its tokens (``SwiftTokens``) with their
  /// spacing, comments left out and string literals emptied, so that a word
  /// in a comment or a message is not a finding, while the code in an
  /// interpolation is. Every scan of learner code in the runner reads this.
  static func code(of text: String) -> [String] {
    let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
    var lines = [String](repeating: "", count: max(lineCount, 1))
    for token in SwiftTokens.read(text) {
      let index = min(token.line, lines.count) - 1
      let spelled: String
      switch token.kind {
      case .identifier, .number, .punctuation: spelled = token.text
      case .attribute: spelled = "@" + token.text
      case .pound: spelled = "#" + token.text
      case .string: spelled = "\"\""
      case .regexLiteral: spelled = token.text
      }
      // With the original spacing: `a.b(` stays as written, as the patterns expect.
      lines[index] += (token.spaceBefore && !lines[index].isEmpty ? " " : "") + spelled
    }
    return lines
  }
}
