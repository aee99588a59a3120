/// What a chapter's Swift reaches beyond its exercise, decided from its
/// tokens (``SwiftTokens``), not from its text: a word in a comment or a
/// string is not code, and code hidden in an interpolation or behind a raw
/// string's quote is.
///
/// Most findings are for a person to look at, not a refusal: the walls
/// (the sandbox every build and run happens in, the grader's own copy of
/// the course, the filtered environment, the checks' process) decide what
/// learner code can do, and a list of names can be neither complete for an
/// attacker nor silent for a learner (`Thread.isMainThread`, a method of
/// one's own called `open`, `URL(string:)`). So a name of the C library's or
/// Foundation's that reaches files, processes, the environment, descriptors
/// or raw memory, an import of a system module and a regex literal are
/// ``Violation/Kind/review``: the chapter is built and graded, and `grade`
/// lists the line for the instructor.
///
/// Refused (``Violation/Kind/refused``), because no exercise can need them
/// and no wall contains them, are what acts before any check or outside the
/// checks' process, at link and load time:
/// - attributes that place data in sections, define or replace symbols by
///   name, or start the program (`@section`, `@used`, `@c`, `@_cdecl`,
///   `@_silgen_name`, `@_dynamicReplacement`, `@_extern`, `@main`, …, and
///   every other `@_` attribute of the compiler's own): a load-time
///   constructor or a replaced `fwrite` runs in every chapter's process;
/// - `#externalMacro`, which loads a compiler plugin into the build;
/// - the testing libraries, except in a chapter whose checks the learner
///   writes: a trait's initializer runs at test discovery, in every
///   chapter's test process;
/// - a raw identifier (SE-0451): one with a `)` in an interpolation hangs
///   the compiler.
/// In a file with a regex literal, past which only the compiler's grammar
/// tells code from pattern, these are looked for in the raw text too.
///
/// ```swift
/// let found = ChapterRules.violations(in: ["Cache.swift": text], of: chapter)
/// // [Cache.swift:3: uses @_cdecl, which defines a C symbol by name: …]
/// found.filter(\.isRefused)  // what keeps the chapter from being built
/// ```
package enum ChapterRules {
  /// One finding: where, why, and whether it keeps the chapter from being built.
  package struct Violation: Sendable, Equatable, Codable, CustomStringConvertible {
    /// What a finding does to the chapter.
    package enum Kind: String, Sendable, Equatable, Codable {
      /// Not built: no exercise needs it, and no wall contains it.
      case refused
      /// Built and graded; listed for a person to look at.
      case review
    }
    /// The file, relative to the chapter's folder.
    package var path: String
    package var line: Int
    package var reason: String
    package var kind: Kind = .review
    package var description: String { "\(path):\(line): \(reason)" }
    /// Whether the chapter is not built because of it.
    package var isRefused: Bool { kind == .refused }
  }

  /// The testing libraries: imported by a chapter, their code (a trait's
  /// initializer) runs at test discovery in every chapter's process.
  static let testingModules: Set<String> = ["Testing", "XCTest", "_Testing_Foundation", "_TestingInternals"]

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
    "DebugDescription": "places data in a section of its own",
    "abi": "gives a declaration another symbol, which can stand for another's",
    "implementation": "implements another language's declaration by name",
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
    add("Bundle", "loads code or reads the program's files")
    add("URL NSURL", "names a file or a resource: no exercise needs one, and reading one is reading a file")
    add("Thread NSThread", "works with threads directly (Thread.exit ends one); use tasks")
    add(
      #"gsignal ssignal forkpty mkstemp mkdtemp readlinkat renameat unlinkat glob readv preadv recv recvfrom sendto sendmsg chroot setrlimit"#,
      "calls the operating system directly")
    add(
      "Unmanaged memcpy memmove memset strdup",
      "works with raw memory, which reaches past the types")
    add(
      "NSKeyedArchiver NSKeyedUnarchiver archiveRootObject unarchiveObject",
      "opens, reads or writes files or the process's file descriptors")
    add(
      #"wordexp daemon fexecve execvpe on_exit pthread_cancel alarm sigqueue ualarm setitimer"#,
      "starts processes, ends the process or sends signals")
    add(
      #"OutputStream InputStream DispatchIO Pipe NSFileHandle fcntl ioctl remove rename chdir truncate ftruncate mkdir rmdir socket pwritev sendfile pipe pipe2 tmpfile opendir readlink symlink link stdin stdout stderr fread fgets getline NSHomeDirectory NSTemporaryDirectory"#,
      "opens, reads or writes files or the process's file descriptors")
    return names
  }()

  /// Names that are also common words: allowed where a scope around them
  /// declares them (see ``LocalScopes``).
  static let commonWords: Set<String> = [
    "write", "read", "open", "close", "signal", "raise", "system", "kill", "unlink", "remove", "rename",
    "link", "glob",
    "pipe",
  ]

  /// The keywords a declared name follows.
  static let declarers: Set<String> = [
    "func", "var", "let", "class", "struct", "enum", "actor", "typealias",
  ]

  /// Modules whose members are the C library's or Foundation's.
  static let systemModules: Set<String> = [
    "Foundation", "FoundationEssentials", "Glibc", "Darwin", "Musl", "Android", "Bionic", "WASILibc", "ucrt",
    "WinSDK", "SwiftGlibc", "CRT", "Swift", "ObjectiveC", "Thread",
  ]

  /// The rules `sources` (paths relative to the chapter's folder, to text) break.
  package static func violations(in sources: [String: String], of chapter: Curriculum.Chapter) -> [Violation]
  {
    let modules = modules(for: chapter)
    var found: [Violation] = []
    let read = sources.mapValues(SwiftTokens.read)
    // The names the chapter declares itself, and where an enum's `case`
    // list declares (`case started, exit(code: Int)`).
    var declared: Set<String> = []
    var enumCases: [String: Set<Int>] = [:]
    for (path, tokens) in read {
      var braces: [Bool] = []  // per open brace: whether it opens an enum's body
      var sawEnum = false
      var inCaseList = false
      var depth = 0  // parentheses since the case list's `case`
      for (index, token) in tokens.enumerated() {
        switch (token.kind, token.backticked ? "`" : token.text) {
        case (.identifier, "enum"): sawEnum = true
        case (.punctuation, "{"):
          braces.append(sawEnum)
          sawEnum = false
          inCaseList = false
        case (.punctuation, "}"):
          _ = braces.popLast()
          inCaseList = false
        case (.punctuation, ";"): inCaseList = false
        case (.identifier, "case"):
          inCaseList = braces.last == true
          depth = 0
        case (.punctuation, "("): depth += 1
        case (.punctuation, ")"): depth -= 1
        default: break
        }
        guard token.kind == .identifier, index > 0 else { continue }
        let previous = tokens[index - 1]
        if inCaseList, depth == 0, previous.text == "case" || previous.text == "," {
          enumCases[path, default: []].insert(index)
          declared.insert(token.text)
        } else if declarers.contains(previous.text) {
          declared.insert(token.text)
        }
        // A case list goes on past a line's end only after a comma.
        if inCaseList, depth == 0, token.text != "case", token.line != previous.line, previous.text != "," {
          inCaseList = false
        }
      }
    }
    for path in sources.keys.sorted() {
      let tokens = read[path]!
      func add(_ line: Int, _ reason: String, _ kind: Violation.Kind = .review) {
        found.append(Violation(path: path, line: line, reason: reason, kind: kind))
      }
      if tokens.contains(where: { $0.kind == .regexLiteral }) {
        for (line, reason) in rawTextFindings(sources[path]!, modules: modules) {
          add(line, reason, .refused)
        }
      }
      var inCasePattern = false  // from a `switch`'s `case` to its `:`
      var parentheses = 0
      for (index, token) in tokens.enumerated() {
        let previous = index > 0 ? tokens[index - 1] : nil
        let next = index + 1 < tokens.count ? tokens[index + 1] : nil
        if token.kind == .punctuation, token.text == "(" { parentheses += 1 }
        if token.kind == .punctuation, token.text == ")" { parentheses -= 1 }
        if token.isKeyword("case"), enumCases[path]?.contains(index + 1) != true {
          inCasePattern = true
          parentheses = 0
        }
        if inCasePattern, token.kind == .punctuation, token.text == ":", parentheses <= 0 {
          inCasePattern = false
        }
        if token.kind == .identifier, token.backticked, !isPlainName(token.text) {
          add(
            token.line,
            "`\(token.text)` is a raw identifier, which no exercise needs (one can hang the compiler): use a plain name",
            .refused)
          continue
        }
        switch token.kind {
        case .regexLiteral:
          add(
            token.line,
            "a regex literal (or a `/` where one could start): past it, only the compiler can tell code from pattern"
          )
        case .attribute:
          if let reason = attributes[token.text] {
            add(token.line, "@\(token.text) \(reason)", .refused)
          } else if token.text.hasPrefix("_") {
            // The compiler's own attributes, unsupported in app code: none
            // is needed, and several name or place symbols.
            add(
              token.line, "@\(token.text) is one of the compiler's own attributes, which no exercise needs",
              .refused)
          }
        case .pound:
          if let reason = poundKeywords[token.text] { add(token.line, "#\(token.text) \(reason)", .refused) }
        case .identifier:
          if token.isKeyword("import"), previous?.text != ".",
            let module = importedModule(after: index, in: tokens),
            !modules.contains(module)
          {
            if testingModules.contains(module) {
              add(
                token.line,
                "imports \(module), whose code runs as every chapter's checks are found; only a chapter whose checks you write may",
                .refused)
            } else {
              add(token.line, "imports \(module), a module no exercise needs")
            }
            continue
          }
          if let reason = labelled(at: index, in: tokens) {
            add(token.line, reason)
            continue
          }
          if let reason = members[token.text], previous?.text == "." {
            add(token.line, "\(token.text) \(reason)")
            continue
          }
          guard let reason = names[token.text] ?? unsafeName(token.text) else { continue }
          let isMember = previous?.text == "."
          let throughModule =
            isMember && index >= 2 && tokens[index - 2].kind == .identifier
            && systemModules.contains(tokens[index - 2].text)
            && (index < 3 || tokens[index - 3].text != ".")
          // A declaration of one's own (`func write(`, `var signal`, an
          // enum's `case exit`) is not a use; every use of the name is,
          // wherever it is declared: the compiler may still take the C
          // library's.
          let declares =
            (previous.map { declarers.contains($0.text) && !$0.backticked } ?? false)
            || enumCases[path]?.contains(index) == true
          // An argument label or a parameter (`f(signal: 1)`, `func f(_ open:
          // Bool)`), never in a `case` pattern.
          let opensList = { (token: SwiftTokens.Token?) in ["(", ","].contains(token?.text ?? "") }
          let isLabel =
            next?.text == ":" && !inCasePattern
            && (opensList(previous)
              || (previous?.kind == .identifier && index >= 2 && opensList(tokens[index - 2])))
          // `open class`, `open func`: the access level.
          let isModifier = token.text == "open" && (next.map { Self.modifiable.contains($0.text) } ?? false)
          if throughModule || (!isMember && !declares && !isLabel && !isModifier) {
            let own = declared.contains(token.text) || commonWords.contains(token.text)
            let isType = token.text.first?.isUppercase == true
            add(
              token.line,
              "\(token.text) \(reason)"
                + (!own
                  ? ""
                  : isType
                    ? " (if it is a type of your own, rename it: Foundation has one too)"
                    : " (if it is a name of your own, rename it, or call a method of yours as self.\(token.text): the C library has one too)")
            )
          }
        default:
          continue
        }
      }
    }
    return found
  }

  /// What is refused, looked for in the raw text of a file with a regex
  /// literal (past one, the tokens may take code for a pattern): a refused
  /// attribute after `@` (spaces and backticks allowed) and `externalMacro`,
  /// each as a word anywhere, comments and strings included, and a line
  /// that imports a testing library the chapter may not import. Strict on
  /// purpose: it costs a learner who writes a regex literal only these words
  /// (a comment about testing is not one).
  static func rawTextFindings(_ text: String, modules: Set<String>) -> [(line: Int, reason: String)] {
    let words = attributes.keys.sorted().joined(separator: "|")
    let attribute = try! Regex(#"@[\s`]*(?:_\w+|"# + words + #")\b"#).wordBoundaryKind(.simple)
    let testing = testingModules.subtracting(modules).sorted().joined(separator: "|")
    let word = try! Regex(
      #"\bexternalMacro\b"# + (testing.isEmpty ? "" : #"|\bimport\b.*\b(?:"# + testing + #")\b"#)
    )
    .wordBoundaryKind(.simple)
    var found: [(Int, String)] = []
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
    where line.contains(attribute) || line.contains(word) {
      found.append(
        (
          index + 1,
          "names a refused attribute, externalMacro or a testing library in a file with a regex literal, where only the compiler can tell code from pattern"
        ))
    }
    return found
  }

  /// What `open` is the access level of.
  static let modifiable: Set<String> = [
    "class", "func", "var", "let", "subscript", "init", "override", "static", "final", "convenience",
    "required",
  ]

  /// Whether `name` could be written without backticks (a raw identifier,
  /// SE-0451, is refused: one with a `)` in an interpolation hangs the compiler).
  static func isPlainName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else {
      return false
    }
    return name.unicodeScalars.allSatisfy {
      $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType != nil
    }
  }

  /// Members that reach the process wherever they are called.
  static let members: [String: String] = [
    "makeSignalSource": "handles signals",
    "standardError": "reaches the process's file descriptors",
    "standardOutput": "reaches the process's file descriptors",
    "standardInput": "reaches the process's file descriptors",
    "executablePath": "reads the program's path",
    "executableURL": "reads or starts a program",
    "toOpaque": "works with raw memory, which reaches past the types",
    "storeBytes": "works with raw memory, which reaches past the types",
    "unsafeLoad": "works with raw memory, which reaches past the types",
    "withContiguousStorageIfAvailable": "works with raw memory, which reaches past the types",
    "withContiguousMutableStorageIfAvailable": "works with raw memory, which reaches past the types",
  ]

  /// Names of unsafe memory tricks: a pointer cast reaches anything.
  static func unsafeName(_ name: String) -> String? {
    let allowed: Set<String> = [
      "withUnsafeContinuation", "withUnsafeThrowingContinuation", "withUnsafeCurrentTask",
    ]
    guard !allowed.contains(name) else { return nil }
    if name.hasPrefix("Unsafe") && name.contains("Pointer") || name.hasPrefix("withUnsafe")
      || [
        "unsafeDowncast", "_typeByName", "withMemoryRebound", "assumingMemoryBound", "bindMemory",
        "OpaquePointer",
      ]
      .contains(name)
    {
      return "works with raw memory, which reaches past the types"
    }
    return nil
  }

  /// What the call whose label is the token at `index` does, when that is
  /// to read or write a file: `String(contentsOf:)`, `Data(contentsOf:)`,
  /// `URL(filePath:)`, `.write(to:)`, `.write(toFile:)`.
  static func labelled(at index: Int, in tokens: [SwiftTokens.Token]) -> String? {
    guard index + 1 < tokens.count, tokens[index + 1].text == ":", index >= 2, tokens[index - 1].text == "("
    else { return nil }
    let label = tokens[index].text
    let callee = tokens[index - 2].text
    let readers: Set<String> = [
      "String", "Data", "NSData", "NSString", "NSArray", "NSDictionary", "init", "Array",
    ]
    if ["contentsOf", "contentsOfFile", "contentsOfURL"].contains(label),
      readers.contains(callee) || callee.first?.isUppercase == true
    {
      return "\(callee)(\(label):) reads a file"
    }
    let files: Set<String> = [
      "filePath", "fileURLWithPath", "fileURLWithFileSystemRepresentation", "fileAtPath", "forWritingAtPath",
      "forReadingAtPath", "toFileAtPath", "toFileDescriptor", "fileDescriptor",
    ]
    if files.contains(label) { return "\(label): names a file or a file descriptor" }
    if label == "unsafeUninitializedCapacity" { return "\(label): works with raw memory" }
    if ["to", "toFile"].contains(label), callee == "write", index >= 3, tokens[index - 3].text == "." {
      return ".write(\(label):) writes a file"
    }
    return nil
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
