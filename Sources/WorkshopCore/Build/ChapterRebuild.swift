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

  /// Rebuilds `chapter` on top of `last`, the build graded before the edit.
  public func rebuild(_ chapter: Curriculum.Chapter, after last: Build) -> Outcome {
    guard last.sanitizer == nil, !chapter.writesChecks else {
      return .unavailable("the chapter is graded with builds of its own")
    }
    let scratch = workspace.scratchPath(for: variant)
    // SwiftPM locks its scratch folder while it builds; so does this, with
    // SwiftPM's own lock, before reading what SwiftPM wrote there.
    return SwiftPMLock.withLock(onScratch: scratch) { rebuild(chapter, after: last, in: scratch) }
      ?? .unavailable("another build is running")
  }

  /// ``rebuild(_:after:)``, holding SwiftPM's lock on `scratch`.
  private func rebuild(_ chapter: Curriculum.Chapter, after last: Build, in scratch: URL) -> Outcome {

    // The plan must be the one the last complete SwiftPM build wrote: any
    // SwiftPM run since (one that left a chapter out, or was interrupted)
    // rewrote it.
    let recordFile = scratch.appendingPathComponent(Fingerprint.Record.fileName)
    guard
      let planText = try? String(contentsOf: scratch.appendingPathComponent("debug.yaml"), encoding: .utf8),
      let record = Fingerprint.Record.load(from: recordFile),
      record.plan == ContentHash.of(Data(planText.utf8))
    else { return .unavailable("the build plan is not the last build's") }
    guard let compile = Self.command(in: planText, key: "C.\(chapter.codeModule)-", suffix: "-debug.module"),
      let checks = Self.command(in: planText, key: "C.\(chapter.testModule)-", suffix: "-debug.module"),
      let link = Self.command(in: planText, key: "C.", suffix: "-debug.test")
    else { return .unavailable("the last build left the chapter out") }

    // The plan must be for the files the chapter has now.
    let folder = workspace.url(workspace.codeFolder(chapter, variant)).path
    let planned = Set(compile.inputs.filter { $0.hasSuffix(".swift") }.map(Self.realPath))
    let present = Set(Self.swiftFiles(in: folder).map(Self.realPath))
    guard planned == present else { return .unavailable("the chapter's files were added or removed") }
    // Nothing else changed since that build. The inputs are read before
    // compiling: an edit saved meanwhile is a change.
    let states = Fingerprint.states(workspace: workspace, variant: variant)
    guard Self.onlyChanged(chapter, states: states, record: record, workspace: workspace, variant: variant)
    else {
      return .unavailable("files outside the chapter changed")
    }
    if let problems = Builder(workspace: workspace, variant: variant, environment: environment).precheck(
      only: chapter)
    {
      return .compileErrors(problems)
    }

    let interface = compile.outputs.first { $0.hasSuffix(".swiftmodule") }.map { URL(fileURLWithPath: $0) }
    /// After a failed compile the interface may be new while the checks were
    /// built against the old one: without it, the next rebuild compiles
    /// the checks again, and SwiftPM the chapter.
    func failed(_ outcome: ProcessOutcome) -> Outcome {
      if let interface { try? FileManager.default.removeItem(at: interface) }
      let errors = Diagnostics.compilerErrors(in: outcome.standardOutput + "\n" + outcome.standardError)
      guard !errors.isEmpty else { return .unavailable("the compiler failed without an error") }
      return .compileErrors(errors.prefix(3).map { workspace.relativize($0.text) })
    }
    do {
      let before = interface.map(Fingerprint.hash) ?? ""
      let compiled = try self.compile(compile.arguments)
      guard compiled.succeeded else { return failed(compiled) }
      let checksRebuilt = before.isEmpty || interface.map(Fingerprint.hash) != before
      if checksRebuilt {
        let checked = try self.compile(checks.arguments)
        guard checked.succeeded else { return failed(checked) }
      }
      guard try self.link(link.arguments) else { return .unavailable("the link failed") }
      let product = try last.launcher.product(in: scratch.appendingPathComponent("debug"))
      // The product is now what SwiftPM would have built from these inputs:
      // the next run reuses it, and the next quick rebuild starts from it.
      // SwiftPM's own record of what it compiled is not: its next build
      // compiles the modules built here again, whole.
      var updated = record
      let prefix = workspace.codeFolder(chapter, variant) + "/"
      updated.files = record.files.filter { !$0.key.hasPrefix(prefix) }
        .merging(states.filter { $0.key.hasPrefix(prefix) }) { _, new in new }
      updated.product = Fingerprint.identity(of: product)
      updated.quickBuilt = Array(
        Set(record.quickBuilt ?? []).union([chapter.codeModule] + (checksRebuilt ? [chapter.testModule] : []))
      ).sorted()
      updated.save(to: recordFile)
      var build = last
      build.product = product
      build.brokenChapters[chapter.number] = nil
      return .built(build, checksRebuilt: checksRebuilt)
    } catch {
      return .unavailable("\(error)")
    }
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

  /// Whether every input of the variant's build, other than `chapter`'s
  /// code, has the content it had at the last SwiftPM build.
  static func onlyChanged(
    _ chapter: Curriculum.Chapter, states: [String: Fingerprint.FileState], record: Fingerprint.Record,
    workspace: Workspace, variant: Variant
  ) -> Bool {
    let prefix = workspace.codeFolder(chapter, variant) + "/"
    let now = states.mapValues(\.hash)
    let last = record.inputs
    for path in Set(now.keys).union(last.keys) where !path.hasPrefix(prefix) && now[path] != last[path] {
      return false
    }
    return true
  }

  // MARK: - Running the drivers' jobs directly

  /// Compiles a module: the compiler jobs the driver would run, side by side.
  /// Their output together is what the driver would print.
  private func compile(_ arguments: [String]) throws -> ProcessOutcome {
    guard let jobs = jobs(for: arguments) else { return try run(arguments) }
    let outcomes = concurrentMap(jobs, width: jobs.count) { job in try? run(job) }
    guard outcomes.allSatisfy({ $0 != nil }) else { return try run(arguments) }
    let all = outcomes.compactMap { $0 }
    return ProcessOutcome(
      termination: all.first { !$0.succeeded }?.termination ?? .exited(0),
      timedOut: all.contains { $0.timedOut },
      standardOutput: all.map(\.standardOutput).joined(separator: "\n"),
      standardError: all.map(\.standardError).joined(separator: "\n"))
  }

  /// Links the test product again. The driver's link is two tools deep
  /// (`swiftc` runs `clang`, which runs the linker); the commands they would
  /// run are asked once (`-###`) and then run directly, which halves the
  /// link's time. When that fails, the planned command runs as it is.
  func link(_ arguments: [String]) throws -> Bool {
    if let jobs = jobs(for: arguments) {
      var linked = true
      for job in jobs where linked { linked = try run(job).succeeded }
      if linked { return true }
      driverJobs.keep(nil, for: arguments)
    }
    return try run(arguments).succeeded
  }

  /// The jobs the driver would run for `arguments`: kept from an earlier
  /// run, or asked now and kept.
  private func jobs(for arguments: [String]) -> [[String]]? {
    if let kept = driverJobs.jobs(for: arguments) { return kept }
    guard let asked = expand(arguments) else { return nil }
    driverJobs.keep(asked, for: arguments)
    return asked
  }

  /// The drivers' answers, kept beside the scratch folder (see ``DriverJobs``).
  var driverJobs: DriverJobs {
    let scratch = workspace.scratchPath(for: variant)
    return DriverJobs(
      folder: scratch.deletingLastPathComponent().appendingPathComponent(scratch.lastPathComponent + "-jobs"))
  }

  /// The commands `swiftc` would run for `arguments`, with each `clang`
  /// among them replaced by the commands it would run; nil when a command
  /// needs a file the driver writes first (a temporary file list), which
  /// only running the driver itself provides.
  private func expand(_ arguments: [String]) -> [[String]]? {
    func jobs(_ command: [String]) -> [[String]]? {
      guard let listed = try? run(command + ["-###"]), listed.succeeded else { return nil }
      let lines = (listed.standardOutput + "\n" + listed.standardError).split(separator: "\n")
      return lines.compactMap { line in
        let words = ShellWords.split(String(line))
        guard let first = words.first, first.hasPrefix("/") else { return nil }
        return words
      }
    }
    guard let planned = jobs(arguments), !planned.isEmpty,
      !planned.joined().contains(where: { $0.contains("TemporaryDirectory.") })
    else { return nil }
    var expanded: [[String]] = []
    for job in planned {
      let tool = URL(fileURLWithPath: job[0]).lastPathComponent
      if tool == "clang" || tool == "clang++" {
        guard let inner = jobs(job), !inner.isEmpty else { return nil }
        expanded += inner
      } else {
        expanded.append(job)
      }
    }
    return expanded
  }

  private func run(_ arguments: [String]) throws -> ProcessOutcome {
    guard let executable = arguments.first else { throw GradingError(description: "an empty command") }
    // Each job a temporary folder of its own, removed after it: a driver
    // asked for its jobs (`-###`) leaves behind the folder it would have
    // used, and jobs run side by side (the versions' links).
    let scratch = workspace.scratchPath(for: variant)
    let temporary = SwiftPMLock.temporaryFolder(of: scratch).appendingPathComponent(
      "job-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: temporary) }
    if let sandbox {
      return try sandbox.build(
        executable, Array(arguments.dropFirst()), environment: environment, package: workspace.root,
        scratch: scratch, temporaryFolder: temporary, timeLimit: 300)
    }
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    var environment = environment
    environment["TMPDIR"] = temporary.path
    return try Subprocess.run(
      executable, Array(arguments.dropFirst()), environment: environment, timeout: 300)
  }
}
