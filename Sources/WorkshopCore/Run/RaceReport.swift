import Foundation

/// One ThreadSanitizer report, read from the log it writes, and told in plain
/// words: what the two threads did, to which variable, where in the
/// learner's code.
struct RaceReport: Sendable, Equatable {
  /// One of the two conflicting accesses.
  struct Access: Sendable, Equatable {
    /// "read", "wrote", "changed" (a Swift inout access)...
    var verb: String
    /// "T5", or "the main thread".
    var thread: String
    /// The stack, innermost first.
    var frames: [Frame]
  }

  /// One stack frame: a function and, when known, its source position.
  struct Frame: Sendable, Equatable {
    var function: String
    var file: String?
    var line: Int?
    var column: Int?
  }

  /// The report's kind as ThreadSanitizer names it: "data race", "Swift access race".
  var kind: String
  /// The current access and the previous one, when the report has both.
  var accesses: [Access]
  /// The report as ThreadSanitizer wrote it, without build IDs.
  var raw: String

  /// The ThreadSanitizer options a test process runs with: keep going after a
  /// report, write reports to `log` (one file per process, `log.<pid>`), and
  /// exit with ``exitCode`` when there was one.
  static func options(log: String) -> String {
    "halt_on_error=0:exitcode=\(exitCode):history_size=4:log_path=\(log)"
  }

  /// How every explanation starts.
  static let headline = "Data race (ThreadSanitizer)"

  /// The exit status of a process in which ThreadSanitizer reported something.
  static let exitCode: Int32 = 66

  /// Every report in a ThreadSanitizer log.
  static func parse(_ log: String) -> [RaceReport] {
    var reports: [RaceReport] = []
    let separator = "=================="
    for block in log.components(separatedBy: separator + "\n") {
      guard let warning = block.range(of: "WARNING: ThreadSanitizer: ") else { continue }
      let kindLine = block[warning.upperBound...].prefix { $0 != "\n" }
      let kind = kindLine.components(separatedBy: " (pid=").first ?? String(kindLine)
      var accesses: [Access] = []
      var current: Access?
      for line in block.split(separator: "\n") {
        let text = line.trimmingCharacters(in: .whitespaces)
        if let access = Self.access(from: text) {
          if let current { accesses.append(current) }
          current = access
        } else if text.hasPrefix("#"), current != nil {
          current?.frames.append(Self.frame(from: text))
        } else if !text.hasPrefix("#") && !text.isEmpty && current != nil && !line.hasPrefix("    ") {
          accesses.append(current!)
          current = nil
        }
      }
      if let current { accesses.append(current) }
      let raw = block.replacingOccurrences(of: separator, with: "")
        .replacing(#/ \(BuildId: [0-9a-f]+\)/#, with: "")
        .trimmingCharacters(in: .whitespacesAndNewlines)
      reports.append(RaceReport(kind: kind, accesses: Array(accesses.prefix(2)), raw: raw))
    }
    return reports
  }

  /// "Write of size 1 at 0x… by thread T5:" and its kin.
  private static func access(from line: String) -> Access? {
    let pattern =
      /^(?:Previous )?(?<what>(?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite)|[Mm]odifying access|[Rr]ead access)(?: of size \d+| of Swift variable)? at 0x[0-9a-f]+ by (?<thread>main thread|thread T\d+)/
    guard let match = line.firstMatch(of: pattern) else { return nil }
    let what = match.output.what.lowercased()
    let verb =
      what.contains("modifying") ? "changed" : what.contains("write") ? "wrote" : "read"
    let thread = match.output.thread == "main thread" ? "the main thread" : String(match.output.thread)
    return Access(verb: verb, thread: thread, frames: [])
  }

  /// One frame line, in either platform's form:
  /// - Linux: `#0 $s13Continuations…F /abs/Bridge.swift:39:8 (WorkshopPackageTests.xctest+0x1abe60)`,
  ///   a mangled symbol and an absolute path with line and column;
  /// - macOS: `#1 EventController.hasListener(for:) EventController.swift:57 (IINA:arm64+0x1002df8cc)`,
  ///   a demangled name that has spaces (`closure #1 in Manager.init()`), a
  ///   bare file name and no column.
  ///
  /// The location is the last word before the binary's `(…+0x…)`, when it
  /// is one (a source file, `<null>`, `<compiler-generated>`); the function
  /// is everything between the frame's number and it.
  static func frame(from line: String) -> Frame {
    let (function, location) = split(frameLine: line)
    guard let location, !location.hasPrefix("<") else { return Frame(function: function) }
    var pieces = location.split(separator: ":").map(String.init)
    var numbers: [Int] = []
    while let last = pieces.last, pieces.count > 1, let number = Int(last) {
      numbers.insert(number, at: 0)
      pieces.removeLast()
    }
    return Frame(
      function: function, file: pieces.joined(separator: ":"), line: numbers.first,
      column: numbers.count > 1 ? numbers[1] : nil)
  }

  /// A frame line's function and its location word, if it has one.
  static func split(frameLine line: String) -> (function: String, location: String?) {
    var text = line.trimmingCharacters(in: .whitespaces)
    if text.hasPrefix("#"), let space = text.firstIndex(of: " ") {
      text = String(text[text.index(after: space)...])
    }
    // The binary and offset, and Linux's build ID, after the location.
    text = text.replacing(#/ \(BuildId: [0-9a-f]+\)$/#, with: "")
    text = text.replacing(#/ \([^()]*\+0x[0-9a-f]+\)$/#, with: "")
    guard let space = text.lastIndex(of: " ") else { return (text, nil) }
    let word = String(text[text.index(after: space)...])
    let isLocation =
      word.hasPrefix("<null>") || word == "<compiler-generated>" || word.hasPrefix("/")
      || word.firstMatch(of: #/^[^/()]+\.(swift|c|cc|cpp|h|m|mm|S)(:\d+){0,2}$/#) != nil
    return isLocation ? (String(text[..<space]), word) : (text, nil)
  }

  /// The first frame of `access` in the given code folders (the learner's);
  /// nil when its stack has none: a place in the checks or the kit is no
  /// place for the learner to look. A bare file name, as macOS reports it,
  /// is looked up in those folders.
  ///
  /// A frame's file is a claim of the log, which the test process writes:
  /// it counts as the learner's only when ``ownFile(_:in:workspace:)``
  /// finds it there, and the frame then names that file, resolved.
  func place(of access: Access, preferring folders: [String], in workspace: Workspace) -> Frame? {
    let located = access.frames.filter { $0.file != nil && $0.line != nil }.map { frame in
      var frame = frame
      if let file = frame.file, !file.hasPrefix("/") {
        frame.file = Self.find(file, in: folders, workspace: workspace) ?? file
      }
      if let file = frame.file, let own = Self.ownFile(file, in: folders, workspace: workspace) {
        frame.file = own
      }
      return frame
    }
    return located.first { Self.ownFile($0.file ?? "", in: folders, workspace: workspace) != nil }
  }

  /// `path` as the learner's own file in the grader's copy: every link
  /// followed and every `..` resolved, when what it names is a regular file
  /// inside one of `folders` of `workspace` (resolved the same way); nil for
  /// anything else. The log is written inside the test process, so a path in
  /// it is a claim the grader checks against its own copy, never a place it
  /// opens as given: `Chapters/12-DataRaces/../../../etc/shadow` names no
  /// file of the chapter.
  static func ownFile(_ path: String, in folders: [String], workspace: Workspace) -> String? {
    guard path.hasPrefix("/"), let real = Files.realPath(path),
      FileStatus(real)?.isRegularFile == true
    else { return nil }
    for folder in folders {
      guard let base = Files.realPath(workspace.url(folder).path) else { continue }
      if real.hasPrefix(base + "/") {
        return workspace.url(folder).path + "/" + real.dropFirst(base.count + 1)
      }
    }
    return nil
  }

  /// The absolute path of the file called `name` in one of `folders`.
  static func find(_ name: String, in folders: [String], workspace: Workspace) -> String? {
    for folder in folders {
      let root = workspace.url(folder)
      if let item = Files.under(root).first(where: { ($0 as NSString).lastPathComponent == name }) {
        return root.appendingPathComponent(item).path
      }
    }
    return nil
  }

  /// Where the race is in the learner's code: the first access's place in
  /// one of `folders`, as `Chapters/12-DataRaces/DownloadStats.swift:14`.
  func learnerLocation(codeFolders folders: [String], workspace: Workspace) -> String? {
    for access in accesses {
      guard let frame = place(of: access, preferring: folders, in: workspace), let line = frame.line,
        let own = Self.ownFile(frame.file ?? "", in: folders, workspace: workspace)
      else { continue }
      return "\(workspace.relativize(own)):\(line)"
    }
    return nil
  }

  /// The report for a learner: what happened in plain words, where, then the
  /// report itself.
  func explanation(codeFolders folders: [String], workspace: Workspace, _ words: Language = .english)
    -> String
  {
    let places = accesses.map { place(of: $0, preferring: folders, in: workspace) }
    // The log is written inside the test process, so it can name any path:
    // only the learner's own files, in the grader's copy, are read for the
    // variable's name.
    let variables = places.map { place in
      place.flatMap { frame in
        Self.ownFile(frame.file ?? "", in: folders, workspace: workspace) != nil
          ? Self.variable(at: frame) : nil
      }
    }
    let variable = variables.compactMap { $0 }.first.map { "`\($0)`" }
    let name = variable ?? words("the same memory", "同一块内存")
    // The verbs and threads in Chinese: "read" 读, "wrote" 写, "changed" 修改; "thread T5", "the main thread".
    let verb = { (access: Access) in
      words(access.verb, access.verb == "read" ? "读取了" : access.verb == "wrote" ? "写入了" : "修改了")
    }
    let thread = { (access: Access) in
      words(
        access.thread,
        access.thread == "the main thread"
          ? "主线程" : "线程 " + access.thread.replacingOccurrences(of: "thread ", with: ""))
    }
    var lines: [String] = []
    if accesses.count == 2 {
      let verbs = Set(accesses.map(\.verb))
      let headline =
        verbs == ["wrote"] || verbs == ["changed"]
        ? words(
          "Two threads \(accesses[0].verb) \(name) without synchronisation",
          "两个线程在没有同步的情况下\(verb(accesses[0])) \(name)")
        : words(
          "One thread \(accesses[0].verb) \(name) while another \(accesses[1].verb) it, without synchronisation",
          "一个线程\(verb(accesses[0])) \(name)，同时另一个线程\(verb(accesses[1]))它，中间没有同步")
      lines.append(words("\(Self.headline): \(headline).", "数据竞争（ThreadSanitizer）：\(headline)。"))
      for (access, place) in zip(accesses, places) {
        guard let place else {
          lines.append(
            words(
              "  \(access.thread) \(access.verb) it with no line of your code in its stack: look for the other place your code touches it",
              "  \(thread(access)) \(verb(access))它，但调用栈里没有你代码的任何一行：找找你的代码碰它的另一个地方")
          )
          continue
        }
        let at = "\(workspace.relativize(place.file ?? "")):\(place.line ?? 0)"
        lines.append(
          words(
            "  \(access.thread) \(access.verb) it at \(at) in \(Self.readable(place.function))",
            "  \(thread(access)) 在 \(at) 的 \(Self.readable(place.function)) 里\(verb(access))它")
        )
      }
      lines.append(
        words(
          "Nothing orders these two accesses: guard the state with a Mutex or an actor, or make it immutable and Sendable.",
          "没有任何东西给这两次访问排序：用 Mutex 或 actor 保护这个状态，或者让它不可变并且是 Sendable 的。")
      )
    } else {
      lines.append(
        words(
          "\(Self.headline): ThreadSanitizer reported a \(kind).",
          "数据竞争（ThreadSanitizer）：ThreadSanitizer 报告了一个 \(kind)。"))
    }
    lines.append("")
    lines.append(words("ThreadSanitizer's report:", "ThreadSanitizer 的报告："))
    lines += readableRaw(codeFolders: folders, workspace: workspace).prefix(40).map { "  " + $0 }
    return lines.joined(separator: "\n")
  }

  /// The identifier at a frame's column, or the nearest one before it
  /// (`count += 1` points at the operator); nil when the line is unreadable.
  /// The file is read only when it is a regular file of at most 1 MiB (a
  /// chapter's files are smaller), never through a link.
  static func variable(at frame: Frame) -> String? {
    guard let file = frame.file, let number = frame.line,
      let bytes = Files.readRegularFile(URL(fileURLWithPath: file), atMost: 1 << 20),
      let text = String(bytes: bytes, encoding: .utf8)
    else { return nil }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard number >= 1, number <= lines.count else { return nil }
    let line = Array(lines[number - 1])
    let isIdentifier = { (c: Character) in c.isLetter || c.isNumber || c == "_" }
    let keywords: Set<String> = ["if", "let", "var", "return", "self", "guard", "true", "false", "else"]
    guard let column = frame.column else {
      // macOS reports no column: the line's first name that is not a keyword.
      let words = String(line).split { !isIdentifier($0) }.map(String.init)
      return words.first { !keywords.contains($0) && $0.first?.isNumber == false }
    }
    var index = min(max(column - 1, 0), max(line.count - 1, 0))
    while index > 0, !isIdentifier(line[index]) { index -= 1 }
    guard index < line.count, isIdentifier(line[index]) else { return nil }
    var start = index
    var end = index
    while start > 0, isIdentifier(line[start - 1]) { start -= 1 }
    while end + 1 < line.count, isIdentifier(line[end + 1]) { end += 1 }
    let word = String(line[start...end])
    return keywords.contains(word) || word.first?.isNumber == true ? nil : word
  }

  /// A Swift symbol as a person reads it, when the toolchain can demangle it.
  static func readable(_ symbol: String) -> String {
    readable([symbol])[symbol] ?? symbol
  }

  /// Swift symbols as a person reads them, in one call of the demangler.
  static func readable(_ symbols: [String]) -> [String: String] {
    let mangled = Array(Set(symbols.filter { $0.hasPrefix("$s") })).sorted()
    guard !mangled.isEmpty,
      let outcome = try? Subprocess.run(
        "swift", ["demangle", "--simplified", "--compact"] + mangled,
        // The runner's own temporary folder, which it removes, not /tmp.
        environment: ProcessInfo.processInfo.environment.merging(
          ["TMPDIR": TemporaryFolder.shared.url.path], uniquingKeysWith: { $1 }),
        timeout: 20),
      outcome.succeeded
    else { return [:] }
    let lines = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    guard lines.count >= mangled.count else { return [:] }
    return Dictionary(uniqueKeysWithValues: zip(mangled, lines.prefix(mangled.count)))
  }

  /// The report, shorter: demangled names, frames of compiler-generated
  /// thunks and of the runtimes left out.
  /// A frame's location as the learner sees it: in their own code, its
  /// path in the course and its line; anywhere else (the checks, the kit,
  /// the runtime), nothing, so that no report sends them into code they
  /// are not meant to change.
  static func shown(_ location: String?, in folders: [String], workspace: Workspace) -> String? {
    guard let location else { return nil }
    let parts = location.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    let file = parts[0]
    let path = file.hasPrefix("/") ? file : find(file, in: folders, workspace: workspace) ?? file
    guard let own = ownFile(path, in: folders, workspace: workspace) else { return nil }
    return ([workspace.relativize(own)] + parts.dropFirst()).joined(separator: ":")
  }

  /// The report itself, readable: functions demangled, the runtime's and
  /// compiler-made frames left out, a location shown only in the learner's
  /// own code (``shown(_:in:workspace:)``), and no summary line, which
  /// repeats the first access with its path wherever it is.
  func readableRaw(codeFolders folders: [String], workspace: Workspace) -> [String] {
    let lines = raw.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let frames = lines.filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
    let names = Self.readable(frames.map { Self.split(frameLine: $0).function })
    var kept: [String] = []
    for line in lines {
      let text = line.trimmingCharacters(in: .whitespaces)
      guard text.hasPrefix("#") else {
        if !text.hasPrefix("SUMMARY:") { kept.append(workspace.relativize(line)) }
        continue
      }
      if text.contains("<compiler-generated>") || text.contains("<null>") || text.contains("/llvm-project/") {
        continue
      }
      let number = text.prefix { $0 != " " }
      let (function, location) = Self.split(frameLine: text)
      let indent = String(line.prefix { $0 == " " })
      kept.append(
        indent + number + " " + (names[function] ?? function)
          + (Self.shown(location, in: folders, workspace: workspace).map { "  " + $0 } ?? ""))
    }
    return kept
  }
}
