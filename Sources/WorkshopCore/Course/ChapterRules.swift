/// What a chapter's Swift may contain, decided from its tokens
/// (``SwiftTokens``), not from its text: a word in a comment or a string is
/// not code, and code hidden in an interpolation or behind a raw string's
/// quote is.
///
/// A chapter is app code for one exercise. No exercise needs to reach the
/// toolchain, the process image or the process's surroundings, and code
/// that does can run before any check (a load-time constructor in a section),
/// replace what reports the checks (a C symbol defined by name), pass
/// options to the linker (`.swift1_autolink_entries`), forge the checks'
/// records, or read what the grader was started with. So a chapter
/// - imports only the modules the course uses;
/// - uses none of the attributes that place data in sections, define or
///   replace symbols by name, or start the program (`@section`, `@used`,
///   `@c`, `@_cdecl`, `@_silgen_name`, `@_dynamicReplacement`, `@_extern`,
///   `@main`, …), nor `#externalMacro`;
/// - names none of the C library's or Foundation's ways to load code, end
///   the process, or read its arguments, environment or files (`dlopen`,
///   `exit`, `getenv`, `CommandLine`, `ProcessInfo`, `FileHandle`, `write`,
///   …), called directly or through their module (`Glibc.exit`);
/// - has no regex literal: past a `/` that may open one, only the
///   compiler's grammar tells code from pattern.
///
/// A chapter that breaks a rule is not built: `check` and `watch` say why
/// in one line, `grade` scores it nothing and lists it for review.
///
/// ```swift
/// let found = ChapterRules.violations(in: ["Cache.swift": text], of: chapter)
/// // [Cache.swift:3: uses @_cdecl, which defines a C symbol by name: …]
/// ```
public enum ChapterRules {
  /// One broken rule: where, and why.
  public struct Violation: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The file, relative to the chapter's folder.
    public var path: String
    public var line: Int
    public var reason: String
    public var description: String { "\(path):\(line): \(reason)" }
  }

  /// The modules any chapter may import.
  static let allowedModules: Set<String> = [
    "Foundation", "FoundationEssentials", "Synchronization", "Dispatch", "Observation", "Swift",
    "_Concurrency",
  ]

  /// The modules `chapter` may import: the course's, and for a chapter whose
  /// checks the learner writes, the testing library, the kit and the
  /// component under test.
  static func modules(for chapter: Curriculum.Chapter) -> Set<String> {
    guard let component = chapter.component else { return allowedModules }
    return allowedModules.union(["Testing", "ConcurrencyTestKit", component])
  }

  /// Attributes no exercise needs, with what they do.
  static let attributes: [String: String] = [
    "section": "places data in a section of its own (a load-time constructor, linker options)",
    "_section": "places data in a section of its own (a load-time constructor, linker options)",
    "used": "keeps a symbol the program never uses (a load-time constructor, linker options)",
    "_used": "keeps a symbol the program never uses (a load-time constructor, linker options)",
    "c": "defines a C symbol by name, which can replace the C library's",
    "_cdecl": "defines a C symbol by name, which can replace the C library's",
    "_silgen_name": "defines or calls a symbol by name",
    "_extern": "calls a symbol by name",
    "_expose": "exports a symbol by name",
    "export": "exports a symbol by name",
    "_dynamicReplacement": "replaces another function at run time",
    "_weakLinked": "links a symbol that may be missing",
    "_objcRuntimeName": "names a class for the run time",
    "main": "starts a program, while a chapter is a library and the checks are its entry point",
  ]

  /// `#` keywords no exercise needs.
  static let poundKeywords: [String: String] = [
    "externalMacro": "loads a compiler plugin"
  ]

  /// Names no exercise needs, with what they do. Each is refused wherever
  /// it is named on its own or through a module (`Glibc.exit`); as a member
  /// of anything else (`task.exit`), it is another declaration.
  static let names: [String: String] = {
    var names: [String: String] = [:]
    func add(_ list: String, _ reason: String) {
      for name in list.split(separator: " ") { names[String(name)] = reason }
    }
    add("dlopen dlsym dlvsym dladdr dlclose dlmopen", "loads code or looks up symbols at run time")
    add(
      "exit _exit _Exit quick_exit atexit at_quick_exit pthread_exit abort_report_np",
      "ends the process or hooks its end, so the checks cannot finish")
    add(
      "getenv secure_getenv setenv unsetenv putenv clearenv environ __environ _NSGetEnviron _NSGetArgv _NSGetArgc CommandLine ProcessInfo",
      "reads or changes the process's arguments or environment")
    add(
      "FileHandle FileManager fopen fdopen freopen fwrite fputs fputc fprintf vfprintf dprintf vdprintf setvbuf dup dup2 dup3 open openat creat write pwrite writev read pread close mkfifo unlink",
      "opens, reads or writes files or the process's file descriptors")
    add("contentsOfFile fileURLWithPath fileURLWithFileSystemRepresentation", "reads or writes files")
    add(
      #"syscall ptrace prctl mmap mprotect posix_spawn posix_spawnp fork vfork execv execve execvp execl execlp execle system popen Process NSTask"#,
      "starts processes or calls the operating system directly")
    add("kill killpg raise sigaction signal pthread_kill sigprocmask", "sends or handles signals")
    add(
      "method_exchangeImplementations method_setImplementation class_replaceMethod class_addMethod NSClassFromString NSSelectorFromString objc_getClass",
      "changes or looks up code at run time")
    add("unsafeBitCast", "casts a value to an unrelated type (a function to a pointer)")
    return names
  }()

  /// Names that are also common words, refused only when called on their own.
  static let commonWords: Set<String> = [
    "write", "read", "open", "close", "signal", "raise", "system", "kill", "unlink",
  ]

  /// The keywords a declared name follows.
  static let declarers: Set<String> = [
    "func", "var", "let", "case", "class", "struct", "enum", "actor", "typealias",
  ]

  /// Modules whose members are the C library's or Foundation's.
  static let systemModules: Set<String> = [
    "Foundation", "FoundationEssentials", "Glibc", "Darwin", "Musl", "Android", "Bionic", "WASILibc", "ucrt",
    "WinSDK", "SwiftGlibc", "CRT", "Swift", "ObjectiveC",
  ]

  /// The rules `sources` (paths relative to the chapter's folder, to text) break.
  public static func violations(in sources: [String: String], of chapter: Curriculum.Chapter) -> [Violation] {
    let modules = modules(for: chapter)
    var found: [Violation] = []
    let read = sources.mapValues(SwiftTokens.read)
    // The names the chapter declares itself.
    var declared: Set<String> = []
    for tokens in read.values {
      var caseLine: Int?
      for (index, token) in tokens.enumerated().dropFirst() where token.kind == .identifier {
        let previous = tokens[index - 1].text
        if token.text == "case" { caseLine = token.line }
        // `case exit, open` declares both.
        if declarers.contains(previous) || (previous == "," && caseLine == token.line) {
          declared.insert(token.text)
        }
      }
    }
    for path in sources.keys.sorted() {
      let tokens = read[path]!
      func add(_ line: Int, _ reason: String) {
        found.append(Violation(path: path, line: line, reason: reason))
      }
      for (index, token) in tokens.enumerated() {
        let previous = index > 0 ? tokens[index - 1] : nil
        let next = index + 1 < tokens.count ? tokens[index + 1] : nil
        switch token.kind {
        case .regexLiteral:
          add(
            token.line,
            "a regex literal (or a `/` where one could start): write the pattern with Regex(\"…\"), or put spaces around the division"
          )
        case .attribute:
          if let reason = attributes[token.text] {
            add(token.line, "@\(token.text) \(reason)")
          }
        case .pound:
          if let reason = poundKeywords[token.text] { add(token.line, "#\(token.text) \(reason)") }
        case .identifier:
          if token.text == "import", previous?.text != ".",
            let module = importedModule(after: index, in: tokens),
            !modules.contains(module)
          {
            add(
              token.line,
              "imports \(module); a chapter imports only \(modules.sorted().joined(separator: ", "))")
            continue
          }
          guard let reason = names[token.text] else { continue }
          let isMember = previous?.text == "."
          let throughModule =
            isMember && index >= 2 && tokens[index - 2].kind == .identifier
            && systemModules.contains(tokens[index - 2].text)
            && (index < 3 || tokens[index - 3].text != ".")
          // A declaration of one's own (`func write(`, `case exit`) is not a use.
          let declares =
            declarers.contains(previous?.text ?? "")
            || (previous?.text == "," && declared.contains(token.text) && next?.text != "(")
          // An argument label (`fileURLWithPath:`) is the name of what is called.
          let isLabel = next?.text == ":"
          // A common word (`read`, `signal`) counts only when called: a
          // variable of that name is not the C function.
          let own = commonWords.contains(token.text) && !throughModule
          if own, next?.text != "(", declared.contains(token.text) { continue }
          if throughModule
            || (!isMember && !declares
              && (!isLabel || token.text.hasPrefix("file") || token.text.hasPrefix("contents")))
          {
            add(
              token.line,
              "\(token.text) \(reason)"
                + (own ? " (if it is a method of your own, call it as self.\(token.text))" : ""))
          }
        default:
          continue
        }
      }
    }
    return found
  }

  /// The top module an `import` at `index` names: `import Glibc`, `import
  /// func Glibc.exit`, `import struct Foundation.Data`.
  static func importedModule(after index: Int, in tokens: [SwiftTokens.Token]) -> String? {
    var position = index + 1
    let kinds: Set<String> = [
      "func", "var", "let", "struct", "class", "enum", "protocol", "typealias", "actor",
    ]
    if position < tokens.count, kinds.contains(tokens[position].text) { position += 1 }
    guard position < tokens.count, tokens[position].kind == .identifier else { return nil }
    return tokens[position].text
  }
}
