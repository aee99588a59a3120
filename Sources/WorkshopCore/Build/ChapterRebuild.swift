import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Rebuilds one chapter whose files were edited, without SwiftPM, for `watch`.
///
/// Starting SwiftPM costs about 0.6 s before it compiles anything, more than
/// the rest of an edit's feedback together. When the only change since the
/// last SwiftPM build is the content of one chapter's existing files, the
/// build plan SwiftPM wrote then (`debug.yaml`) still holds every command the
/// edit needs: this runs those commands itself, the same compiler and linker
/// invocations SwiftPM would run, and nothing else:
/// 1. the chapter's module, compiled whole (a changed file whose date did not
///    change, to the second, is compiled all the same);
/// 2. the chapter's checks, only when the chapter's interface changed;
/// 3. the test product, linked again in place, with the linker and options
///    SwiftPM planned (see ``Builder/linkerArguments``).
///
/// Anything else (a file added or removed, a checks or manifest change, a
/// chapter left out of the last build, another build running in the same
/// folder, a link that fails) is ``Outcome/unavailable(_:)``, and the caller
/// builds with SwiftPM as usual. The next SwiftPM build sees the outputs
/// changed and runs the same commands again, so its state stays right.
public struct ChapterRebuild: Sendable {
  public var workspace: Workspace
  public var variant: Variant
  public var environment: [String: String]
  /// The sandbox the compiler and linker jobs run in, as SwiftPM's builds
  /// do (see ``Builder/sandbox``); nil runs them unsandboxed.
  public var sandbox: Sandbox?

  public init(workspace: Workspace, variant: Variant, environment: [String: String], sandbox: Sandbox? = nil)
  {
    self.workspace = workspace
    self.variant = variant
    self.environment = environment
    self.sandbox = sandbox
  }

  public enum Outcome: Sendable {
    /// The chapter compiled and the test product was linked again;
    /// `checksRebuilt` when the chapter's checks had to be compiled again.
    case built(Build, checksRebuilt: Bool)
    /// The chapter does not compile: its first errors.
    case compileErrors([String])
    /// The quick path does not apply; why, for tests and logs.
    case unavailable(String)
  }

  /// What rebuilding several chapters at once gave.
  public enum RoundOutcome: Sendable {
    /// The test product was linked again from every chapter that compiled.
    /// The build's `brokenChapters` are the chapters that did not, with
    /// their first errors; `checksRebuilt`, the chapters whose checks had
    /// to be compiled again.
    case built(Build, checksRebuilt: Set<Int>)
    /// The quick path does not apply; why, for tests and logs.
    case unavailable(String)
  }

  /// Rebuilds `chapter` on top of `last`, the build graded before the edit.
  public func rebuild(_ chapter: Curriculum.Chapter, after last: Build) -> Outcome {
    switch rebuild(only: [chapter], after: last) {
    case .unavailable(let reason):
      return .unavailable(reason)
    case .built(let build, let checksRebuilt):
      if let errors = build.brokenChapters[chapter.number] { return .compileErrors(errors) }
      return .built(build, checksRebuilt: checksRebuilt.contains(chapter.number))
    }
  }

  /// Rebuilds, on top of `last`, every chapter whose own files changed since
  /// the last build of this scratch folder, SwiftPM's or a quick one:
  /// `verify` places a fix in each of several chapters, then builds.
  ///
  /// A chapter that does not compile is in the build's `brokenChapters`,
  /// as in a SwiftPM build that leaves it out; its objects are in the
  /// product, but its checks are not run.
  public func rebuildChanged(after last: Build) -> RoundOutcome {
    rebuild(only: nil, after: last)
  }

  /// ``rebuild(_:after:)`` of `chapters`, or of those whose files changed when nil.
  private func rebuild(only chapters: [Curriculum.Chapter]?, after last: Build) -> RoundOutcome {
    guard last.sanitizer == nil else { return .unavailable("the build is instrumented") }
    if let chapters, chapters.contains(where: \.writesChecks) {
      return .unavailable("the chapter is graded with builds of its own")
    }
    let scratch = workspace.scratchPath(for: variant)
    // SwiftPM locks its scratch folder while it builds; so does this, with
    // SwiftPM's own lock, before reading what SwiftPM wrote there.
    return SwiftPMLock.withLock(onScratch: scratch) { rebuild(chapters, after: last, in: scratch) }
      ?? .unavailable("another build is running")
  }

  /// One chapter's planned commands: its module, and its checks.
  private struct ChapterCommands {
    var chapter: Curriculum.Chapter
    var compile: PlannedCommand
    var checks: PlannedCommand
    /// The chapter's compiled interface, which its checks are compiled against.
    var interface: URL? {
      compile.outputs.first { $0.hasSuffix(".swiftmodule") }.map { URL(fileURLWithPath: $0) }
    }
  }

  /// ``rebuild(only:after:)``, holding SwiftPM's lock on `scratch`.
  private func rebuild(_ wanted: [Curriculum.Chapter]?, after last: Build, in scratch: URL) -> RoundOutcome {
    // The plan must be the one the last complete SwiftPM build wrote: any
    // SwiftPM run since (one that left a chapter out, or was interrupted)
    // rewrote it.
    let recordFile = scratch.appendingPathComponent(Fingerprint.Record.fileName)
    guard
      let planText = try? String(contentsOf: scratch.appendingPathComponent("debug.yaml"), encoding: .utf8),
      let record = Fingerprint.Record.load(from: recordFile),
      record.plan == ContentHash.of(Data(planText.utf8))
    else { return .unavailable("the build plan is not the last build's") }
    // The inputs are read before compiling: an edit saved meanwhile is a change.
    let states = Fingerprint.states(workspace: workspace, variant: variant)
    guard
      let chapters = wanted
        ?? Self.changedChapters(states: states, record: record, workspace: workspace, variant: variant)
    else { return .unavailable("files outside the chapters changed") }
    guard !chapters.contains(where: \.writesChecks) else {
      return .unavailable("a chapter graded with builds of its own changed")
    }
    guard Self.onlyChanged(chapters, states: states, record: record, workspace: workspace, variant: variant)
    else {
      return .unavailable("files outside the chapter changed")
    }
    guard let link = Self.command(in: planText, key: "C.", suffix: "-debug.test") else {
      return .unavailable("the build plan has no link of the checks")
    }
    var planned: [ChapterCommands] = []
    for chapter in chapters {
      guard
        let compile = Self.command(in: planText, key: "C.\(chapter.codeModule)-", suffix: "-debug.module"),
        let checks = Self.command(in: planText, key: "C.\(chapter.testModule)-", suffix: "-debug.module")
      else { return .unavailable("the last build left chapter \(chapter.paddedNumber) out") }
      // The plan must be for the files the chapter has now.
      let folder = workspace.url(workspace.codeFolder(chapter, variant)).path
      let plannedFiles = Set(compile.inputs.filter { $0.hasSuffix(".swift") }.map(Self.realPath))
      let present = Set(Self.swiftFiles(in: folder).map(Self.realPath))
      guard plannedFiles == present else {
        return .unavailable("chapter \(chapter.paddedNumber)'s files were added or removed")
      }
      planned.append(ChapterCommands(chapter: chapter, compile: compile, checks: checks))
    }
    var build = last
    build.brokenChapters = [:]
    guard !planned.isEmpty else { return .built(build, checksRebuilt: []) }

    let builder = Builder(workspace: workspace, variant: variant, environment: environment)
    for commands in planned {
      if let problems = builder.precheck(only: commands.chapter) {
        build.brokenChapters[commands.chapter.number] = problems
      }
    }
    // SwiftPM's record of a module compiled here is stale from the moment
    // it is: its next build compiles it again, whole, whatever happens next.
    var updated = record
    func markQuickBuilt(_ modules: [String]) {
      updated.quickBuilt = Array(Set(updated.quickBuilt ?? []).union(modules)).sorted()
      updated.save(to: recordFile)
    }
    do {
      // Each chapter's module, then the checks of those whose interface changed.
      let compiling = planned.filter { build.brokenChapters[$0.chapter.number] == nil }
      markQuickBuilt(compiling.map(\.chapter.codeModule))
      let compiled = try compileSideBySide(compiling) { commands in
        let before = commands.interface.map(Fingerprint.hash) ?? ""
        let outcome = try self.compile(commands.compile.arguments)
        let changed = before.isEmpty || commands.interface.map(Fingerprint.hash) != before
        return (outcome, changed)
      }
      var checking: [ChapterCommands] = []
      for (commands, result) in zip(compiling, compiled) {
        switch result {
        case .failure(let failed): build.brokenChapters[commands.chapter.number] = failed.errors
        case .success(true): checking.append(commands)
        case .success(false): break
        }
      }
      markQuickBuilt(checking.map(\.chapter.testModule))
      let checked = try compileSideBySide(checking) { commands in
        (try self.compile(commands.checks.arguments), true)
      }
      for (commands, result) in zip(checking, checked) {
        if case .failure(let failed) = result {
          build.brokenChapters[commands.chapter.number] = failed.errors
        }
      }
      let built = compiling.filter { build.brokenChapters[$0.chapter.number] == nil }
      // Nothing compiled: the product is the last one, and it still holds
      // the last code of every chapter that is now broken.
      guard !built.isEmpty else { return .built(build, checksRebuilt: []) }
      guard try self.link(link.arguments) else { return .unavailable("the link failed") }
      let product = try last.launcher.product(in: scratch.appendingPathComponent("debug"))
      // The product is now what SwiftPM would have built from these inputs:
      // the next run reuses it, and the next quick rebuild starts from it.
      // A chapter that did not compile keeps the files of its last build in
      // the record: it is still a change, compiled again next time.
      let prefixes = built.map { workspace.codeFolder($0.chapter, variant) + "/" }
      func isBuilt(_ path: String) -> Bool { prefixes.contains { path.hasPrefix($0) } }
      updated.files = record.files.filter { !isBuilt($0.key) }
        .merging(states.filter { isBuilt($0.key) }) { _, new in new }
      updated.product = Fingerprint.identity(of: product)
      updated.save(to: recordFile)
      build.product = product
      let checksRebuilt = Set(checking.map(\.chapter.number)).intersection(built.map(\.chapter.number))
      return .built(build, checksRebuilt: checksRebuilt)
    } catch {
      return .unavailable("\(error)")
    }
  }

  /// Runs `compile` for each chapter, two chapters at a time (each compile
  /// runs its own jobs side by side): per chapter, whether it compiled and
  /// what `compile` said with it, or its first errors. A compiler that
  /// failed without an error throws: the quick path does not apply.
  private func compileSideBySide(
    _ chapters: [ChapterCommands],
    _ compile: @escaping @Sendable (ChapterCommands) throws -> (ProcessOutcome, Bool)
  ) throws -> [Result<Bool, CompileErrors>] {
    let workspace = self.workspace
    let results = concurrentMap(chapters, width: 2) {
      commands -> Result<Result<Bool, CompileErrors>, QuickPathError> in
      do {
        let (outcome, value) = try compile(commands)
        guard !outcome.succeeded else { return .success(.success(value)) }
        // After a failed compile the interface may be new while the checks
        // were built against the old one: without it, the next build
        // compiles the checks again, and SwiftPM the chapter.
        if let interface = commands.interface { try? FileManager.default.removeItem(at: interface) }
        let errors = Diagnostics.compilerErrors(in: outcome.standardOutput + "\n" + outcome.standardError)
        guard !errors.isEmpty else { return .failure(QuickPathError("the compiler failed without an error")) }
        return .success(.failure(CompileErrors(errors.prefix(3).map { workspace.relativize($0.text) })))
      } catch {
        return .failure(QuickPathError("\(error)"))
      }
    }
    return try results.map { try $0.get() }
  }

  /// A chapter's first compiler errors.
  struct CompileErrors: Error, Sendable {
    var errors: [String]
    init(_ errors: [String]) { self.errors = errors }
  }

  /// Why the quick path stopped.
  struct QuickPathError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

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

  /// The shell command whose key starts with `key` and ends with `suffix`
  /// (`"C.DebouncedSearch-x86_64-unknown-linux-gnu-debug.module":`), with
  /// the flags that only serve SwiftPM itself left out: its JSON progress
  /// (learners need the compiler's own words), incremental mode (the whole
  /// module is compiled) and the index for editors.
  static func command(in plan: String, key: String, suffix: String) -> PlannedCommand? {
    var found: PlannedCommand?
    var inBlock = false
    var inputs: [String] = []
    var outputs: [String] = []
    for line in plan.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("  \""), line.hasSuffix("\":") {
        let name = line.dropFirst(3).dropLast(2)
        inBlock = name.hasPrefix(key) && name.hasSuffix(suffix)
        inputs = []
        outputs = []
        continue
      }
      guard inBlock else { continue }
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
        found = PlannedCommand(inputs: inputs, outputs: outputs, arguments: strip(arguments))
      }
    }
    return found
  }

  private static func strip(_ arguments: [String]) -> [String] {
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
    let names = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
    return names.filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }
  }

  /// Whether every input of the variant's build, other than the code of
  /// `chapters`, has the content it had at the last build.
  static func onlyChanged(
    _ chapters: [Curriculum.Chapter], states: [String: Fingerprint.FileState], record: Fingerprint.Record,
    workspace: Workspace, variant: Variant
  ) -> Bool {
    let prefixes = chapters.map { workspace.codeFolder($0, variant) + "/" }
    let now = states.mapValues(\.hash)
    let last = record.inputs
    for path in Set(now.keys).union(last.keys)
    where !prefixes.contains(where: { path.hasPrefix($0) }) && now[path] != last[path] {
      return false
    }
    return true
  }

  /// The chapters with a file whose content differs from the last build's,
  /// in course order; nil when a file outside every chapter's code does.
  static func changedChapters(
    states: [String: Fingerprint.FileState], record: Fingerprint.Record, workspace: Workspace,
    variant: Variant
  ) -> [Curriculum.Chapter]? {
    let now = states.mapValues(\.hash)
    let last = record.inputs
    var changed = Set<Int>()
    for path in Set(now.keys).union(last.keys) where now[path] != last[path] {
      guard
        let chapter = workspace.curriculum.chapters.first(where: {
          path.hasPrefix(workspace.codeFolder($0, variant) + "/")
        })
      else { return nil }
      changed.insert(chapter.number)
    }
    return workspace.curriculum.chapters.filter { changed.contains($0.number) }
  }
}
