import Foundation

/// Why grading could not run at all.
package struct GradingError: Error, CustomStringConvertible {
  package var description: String

  package init(description: String) { self.description = description }
}

/// A built variant: the test product and the chapters left out of it.
package struct Build: Sendable {
  /// The test product holding every chapter that compiled.
  var product: URL
  /// How this platform starts the product's checks.
  var launcher: TestLauncher
  /// Why each chapter left out of the build was left out: its first compiler
  /// errors, or the file that cannot be in a chapter.
  package var brokenChapters: [Int: [String]]
  /// The sanitizer the product was built with, if any.
  var sanitizer: Sanitizer? = nil
  /// Whether the product's entry point is the grader's, which seals the
  /// event stream with a key handed to it (`Tests/EntryPoint/XCTMain.swift`,
  /// Linux): every run of it is then read as sealed (see `StreamSeal`).
  var sealsStream = false
}

/// A sanitizer a build can be instrumented with.
enum Sanitizer: String, Sendable {
  /// ThreadSanitizer: reports data races in the checks that run.
  case thread
}

/// Builds a variant with SwiftPM: leaves out the chapters that cannot build so
/// that the others still can, and reuses the last build only when the content
/// of every input is the same.
package struct Builder: Sendable {
  var workspace: Workspace
  var variant: Variant
  /// The sanitizer to build with; its build has a scratch folder of its own.
  var sanitizer: Sanitizer?
  /// Chapters this build leaves out on purpose (a sanitizer build holds only
  /// the chapters graded with it).
  var leftOut: Set<Int>
  /// The language of the progress lines.
  var words: Language = .english
  /// The environment builds run in (the runner's own temporary folder).
  var environment: [String: String]
  /// Called with short progress lines ("Building 12/40").
  var progress: (@Sendable (String) -> Void)?
  /// Whether the build holds the runner's own end-to-end tests
  /// (`WORKSHOP_RUNNER_TESTS=1`), which only `verify` runs: `swift test` and
  /// Xcode's ⌘U run the chapters and the kit's tests.
  var runnerTests = false
  /// The sandbox SwiftPM runs in, with only the scratch folder writable:
  /// compiling and linking learner code runs it (see
  /// ``Sandbox/build(_:_:environment:package:scratch:timeLimit:poll:)``).
  /// Nil builds unsandboxed.
  var sandbox: Sandbox?
  /// The modules this build may compile without SwiftPM when only their
  /// files changed since the last build (see
  /// ``ChapterRebuild/rebuildChanged(after:)``); nil: SwiftPM builds.
  var quickModules: [ChapterRebuild.Module]?

  init(
    workspace: Workspace, variant: Variant, sanitizer: Sanitizer? = nil, leftOut: Set<Int> = [],
    environment: [String: String], progress: (@Sendable (String) -> Void)? = nil
  ) {
    self.workspace = workspace
    self.variant = variant
    self.sanitizer = sanitizer
    self.leftOut = leftOut
    self.environment = environment
    self.progress = progress
  }

  /// Builds the variant with its checks.
  ///
  /// Unless `force` is set, the last complete build is reused when every
  /// input has the same content and the product was not touched since: that
  /// saves SwiftPM's start-up on every run. Otherwise SwiftPM builds, and a
  /// module with a file whose content changed but whose date, to the second,
  /// did not (two saves in one second, a copy that kept the old date) is
  /// rebuilt from scratch, since SwiftPM would take it for unchanged.
  func build(force: Bool = false) throws -> Build {
    let files = Fingerprint.states(workspace: workspace, variant: variant)
    if !force, let reused = lastCompleteBuild(ifBuiltFrom: files) {
      return reused
    }
    if !force, let modules = quickModules, let last = lastCompleteBuild() {
      var rebuild = ChapterRebuild(
        workspace: workspace, variant: variant, environment: environment, sandbox: sandbox)
      rebuild.modules = modules
      rebuild.scratch = scratchPath
      if case .built(let build, _) = rebuild.rebuildChanged(after: last) { return build }
    }
    // Read after the quick path, which may have compiled modules before it
    // stepped aside: they are in the record's `quickBuilt`.
    let last = Fingerprint.Record.load(from: recordFile)
    invalidate(
      modules: Set(
        Fingerprint.modulesSwiftPMWouldMiss(between: last?.files ?? [:], and: files).map { module in
          // A chapter whose checks the learner writes builds as its test module.
          workspace.curriculum.chapters.first { $0.name == module }?.codeModule ?? module
        }
      ).union(last?.quickBuilt ?? []))

    var broken = precheck()
    let launcher = try TestLauncher.platform.get()
    while true {
      let outcome = try swiftBuild(skipping: Set(broken.keys))
      if outcome.succeeded {
        let product = try launcher.product(in: debugFolder)
        // The inputs as read before the build started: an edit saved during
        // the build is a change.
        Fingerprint.Record(
          files: files, product: Fingerprint.identity(of: product), isComplete: broken.isEmpty,
          plan: ContentHash.of(scratchPath.appendingPathComponent("debug.yaml")), runnerTests: runnerTests,
          leftOut: leftOut.sorted()
        )
        .save(to: recordFile)
        return Build(
          product: product, launcher: launcher, brokenChapters: broken, sanitizer: sanitizer,
          sealsStream: sealsStream)
      }
      let newlyBroken = try attribute(outcome, alreadyBroken: broken)
      broken.merge(newlyBroken) { old, _ in old }
    }
  }

  /// The last complete build, when it is still this build's: built with the
  /// same settings, its product untouched since, and, when `files` are given,
  /// from inputs with exactly their content.
  func lastCompleteBuild(ifBuiltFrom files: [String: Fingerprint.FileState]? = nil) -> Build? {
    guard let launcher = try? TestLauncher.platform.get(),
      let last = Fingerprint.Record.load(from: recordFile),
      last.isComplete, files.map({ last.inputs == $0.mapValues(\.hash) }) ?? true,
      (last.runnerTests ?? false) == runnerTests, (last.leftOut ?? []) == leftOut.sorted(),
      let product = try? launcher.product(in: debugFolder), last.product == Fingerprint.identity(of: product)
    else { return nil }
    return Build(
      product: product, launcher: launcher, brokenChapters: [:], sanitizer: sanitizer,
      sealsStream: sealsStream)
  }

  /// Whether this build's product has the grader's sealing entry point:
  /// on Linux, when the workspace has it (which also spares the index).
  var sealsStream: Bool {
    #if os(Linux)
      workspace.hasTestEntryPoint
    #else
      false
    #endif
  }

  // MARK: - One chapter's problems stay in that chapter

  /// Chapters that cannot be built, found before SwiftPM is asked: a missing
  /// or empty folder, a source file in another language, an entry point.
  func precheck() -> [Int: [String]] {
    var broken: [Int: [String]] = [:]
    for chapter in workspace.curriculum.chapters where !leftOut.contains(chapter.number) {
      broken[chapter.number] = precheck(only: chapter)
    }
    return broken
  }

  /// Why `chapter` cannot be built, found without SwiftPM; nil when nothing is wrong.
  func precheck(only chapter: Curriculum.Chapter) -> [String]? {
    let files = FileManager.default
    let folder = workspace.codeFolder(chapter, variant)
    var isFolder: ObjCBool = false
    guard files.fileExists(atPath: workspace.url(folder).path, isDirectory: &isFolder), isFolder.boolValue
    else {
      return ["\(folder) is missing. Restore it (\(Self.resetCommand(chapter)))."]
    }
    let names = Files.under(workspace.url(folder))
    let swift = names.filter { $0.hasSuffix(".swift") }
    var problems: [String] = []
    if swift.isEmpty {
      problems.append(
        "\(folder) has no Swift files. Restore them (\(Self.resetCommand(chapter))).")
    }
    for name in names {
      let ext = (name as NSString).pathExtension.lowercased()
      if Self.otherLanguages.contains(ext) {
        problems.append(
          "\(folder)/\(name) is a .\(ext) file: a chapter holds Swift only. Move it out of the chapter's folder."
        )
      }
      if (name as NSString).lastPathComponent == "main.swift" {
        problems.append(
          "\(folder)/\(name): a chapter is a library, so it cannot have main.swift. Rename the file.")
      }
    }
    var sources: [String: String] = [:]
    for name in swift.sorted() {
      guard let text = try? String(contentsOf: workspace.url(folder + "/" + name), encoding: .utf8) else {
        problems.append("\(folder)/\(name) is not UTF-8 text. Save it as UTF-8.")
        continue
      }
      sources[name] = text
    }
    let rules = chapter.attacksTheGrader ? [] : ChapterRules.violations(in: sources, of: chapter)
    for violation in rules where violation.isRefused {
      problems.append(
        "\(folder)/\(violation.path):\(violation.line): \(violation.reason). \(Self.refusal)"
      )
    }
    return problems.isEmpty ? nil : problems
  }

  /// What a chapter the compiler was stopped on at a limit is told.
  package static func limitMessage(_ limits: Sandbox.Limits) -> String {
    "It did not compile within \(limits.cpuSeconds ?? 0) s of CPU time and \(limits.memory >> 30) GiB of memory: the compiler was stopped. Simplify the types or expressions it was working on."
  }

  /// How a problem from ``ChapterRules`` ends: what tells it from a compiler error.
  package static let refusal = "A chapter may not do this: remove it."

  /// The command that brings a chapter's shipped files back, which the
  /// errors for a missing folder or missing files end with.
  package static func resetCommand(_ chapter: Curriculum.Chapter) -> String {
    "swift run workshop reset \(chapter.paddedNumber)"
  }

  /// Source files SwiftPM would compile as another language.
  static let otherLanguages: Set<String> = ["c", "cc", "cpp", "cxx", "c++", "m", "mm", "s", "asm"]

  /// The chapters a failed build's errors belong to; when none of them names
  /// a chapter, the chapter that breaks the build is found by building
  /// without chapters, so that one bad chapter never stops the others.
  private func attribute(_ outcome: ProcessOutcome, alreadyBroken broken: [Int: [String]]) throws -> [Int:
    [String]]
  {
    let output = outcome.standardOutput + "\n" + outcome.standardError
    let errors = Diagnostics.compilerErrors(in: output)
    let known = Set(workspace.curriculum.chapters.map(\.number)).subtracting(leftOut)
    // A compiler or linker stopped at a limit: the chapter it was working on
    // is reported, and the build goes on without it once; never searched
    // for with more builds, each of which would run into the limit again.
    if let limits = sandbox?.buildLimits, Diagnostics.hitLimit(output) {
      let numbers = Diagnostics.chaptersBeingCompiled(in: output).filter {
        known.contains($0) && broken[$0] == nil
      }
      guard let number = numbers.first else {
        throw GradingError(
          description:
            "the build was stopped at its limits outside any chapter (\(variant.rawValue)): \(Self.limitMessage(limits))"
        )
      }
      return [number: [Self.limitMessage(limits)]]
    }
    var found: [Int: [String]] = [:]
    for error in errors {
      guard let number = Diagnostics.chapterNumber(ofPath: error.path), known.contains(number),
        broken[number] == nil
      else { continue }
      found[number, default: []].append(workspace.relativize(error.text))
    }
    if !found.isEmpty { return found.mapValues { Array($0.prefix(3)) } }

    let shown =
      errors.isEmpty
      ? Self.tail(of: output, lines: 12)
      : errors.prefix(5).map { workspace.relativize($0.text) }.joined(separator: "\n")
    let candidates = workspace.curriculum.chapters.map(\.number).filter {
      broken[$0] == nil && !leftOut.contains($0)
    }
    // Does the build succeed without any chapter? If not, the fault is outside them.
    guard !candidates.isEmpty, try swiftBuild(skipping: Set(known)).succeeded else {
      throw GradingError(description: "the build failed outside any chapter (\(variant.rawValue)):\n\(shown)")
    }
    // The shortest prefix of the chapters that fails ends with a culprit.
    var low = 1
    var high = candidates.count
    while low < high {
      let middle = (low + high) / 2
      let included = Set(candidates.prefix(middle))
      if try swiftBuild(skipping: Set(known).subtracting(included)).succeeded {
        low = middle + 1
      } else {
        high = middle
      }
    }
    let culprit = candidates[low - 1]
    return [culprit: ["It breaks the build, though no error names one of its files:", shown]]
  }

  // MARK: - SwiftPM

  /// Runs `swift build` with the chapters in `skipped` left out.
  private func swiftBuild(skipping skipped: Set<Int>) throws -> ProcessOutcome {
    var environment = self.environment
    environment["WORKSHOP_SOLUTIONS"] = variant == .solutions ? "1" : nil
    // The learner's build leaves the runner and its tests out; the solutions
    // build keeps them, for `verify` runs the tooling's tests from it.
    environment["WORKSHOP_GRADING"] = variant == .chapters || sanitizer != nil ? "1" : nil
    environment["WORKSHOP_RUNNER_TESTS"] = runnerTests ? "1" : nil
    let skipped = skipped.union(leftOut)
    environment["WORKSHOP_SKIP"] =
      skipped.isEmpty ? nil : skipped.sorted().map(String.init).joined(separator: ",")
    // A temporary folder of the build's own, the same every time: SwiftPM
    // keys its manifest cache on the environment, so a new TMPDIR per run
    // would cost a manifest evaluation (about a second) every build. What
    // the build leaves there is removed after it; builds in one scratch
    // folder never overlap (SwiftPM locks it, with a lock file kept there).
    let temporary = SwiftPMLock.temporaryFolder(of: scratchPath)
    try? FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    environment["TMPDIR"] = temporary.path
    let before = Set((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [])
    defer {
      for item in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
      where !before.contains(item) && !SwiftPMLock.isLockFile(item) {
        try? FileManager.default.removeItem(at: temporary.appendingPathComponent(item))
      }
    }
    let arguments = swiftBuildArguments
    // The test entry point, on Linux, is what lets the build go without an
    // index: one decision for both (see `swiftBuildArguments`).
    #if os(Linux)
      if arguments.contains(Self.noIndexArgument) { environment["WORKSHOP_TEST_ENTRY_POINT"] = "1" }
    #endif
    let progress = self.progress
    let building = words("Building ", "正在构建 ")
    let poll: (String) -> Void = { output in
      guard let progress, let step = Self.buildStep(in: output) else { return }
      progress(building + step)
    }
    if let sandbox {
      return try sandbox.build(
        "swift", arguments + ["--manifest-cache", "local"], environment: environment, package: workspace.root,
        scratch: scratchPath, timeLimit: 30 * 60, poll: poll)
    }
    return try Subprocess.run("swift", arguments, environment: environment, timeout: 30 * 60, poll: poll)
  }

  /// SwiftPM's arguments for this build.
  var swiftBuildArguments: [String] {
    // The native build system by name: the runner reads its layout
    // (`debug.yaml`, `debug/*.xctest`), and SwiftPM 6.4 makes Swift Build
    // the default. 6.2 and 6.3 take the option, with native their default.
    var arguments = [
      "build", "--build-tests", "--build-system", "native", "--package-path", workspace.root.path,
      "--scratch-path", scratchPath.path,
    ]
    // Race reports need line numbers. Plain builds keep line tables only:
    // a crash's backtrace then names the learner's line (see
    // `RuntimeMessage.stop(in:)`), while full debug info would double the
    // time to link. Measured against `-gnone` on 2 cores under load: a
    // clean build 168 s against 192 s, an edit's build 3.5-6.2 s against
    // 4.9-7.1 s, the test product 8.6 MB against 7.3 MB.
    arguments += sanitizer.map { ["--sanitize=\($0.rawValue)"] } ?? ["-Xswiftc", "-gline-tables-only"]
    // Nothing reads an index but SwiftPM's discovery of XCTest tests on
    // Linux, which the grader's test entry point makes unneeded (see
    // `Workspace.testEntryPointFolder`): each compile is a fifth cheaper.
    if workspace.buildsTestsWithoutIndex { arguments.append(Self.noIndexArgument) }
    // The course's own code (the solutions, the kit, the runner and every
    // check) has no warnings: its build fails on a new one, so `verify`
    // does. A learner's chapters may warn; their builds do not fail on it.
    if variant == .solutions, sanitizer == nil { arguments += Self.courseCodeArguments }
    return arguments + Self.linkerArguments
  }

  /// SwiftPM's option that builds without an index.
  static let noIndexArgument = "--disable-index-store"

  /// What the course's own build adds: warnings are errors.
  static let courseCodeArguments = ["-Xswiftc", "-warnings-as-errors"]

  /// The linker every build of the runner's links with, so that the quick
  /// rebuild (``ChapterRebuild``), which runs the links SwiftPM planned,
  /// links exactly as SwiftPM does: on Linux the toolchain's `ld.lld` when it
  /// has one (it links the test product in half the time of `ld.gold`),
  /// named in SwiftPM's plan; elsewhere the platform's default.
  static let linkerArguments: [String] = {
    #if os(Linux)
      guard let swift = Subprocess.executable(named: "swift") else { return [] }
      let folder = URL(fileURLWithPath: ChapterRebuild.realPath(swift)).deletingLastPathComponent()
      guard FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("ld.lld").path) else {
        return []
      }
      return ["-Xswiftc", "-use-ld=lld"]
    #else
      return []
    #endif
  }()

  /// Removes what SwiftPM compiled for `modules`, so that it compiles them
  /// again. It keeps the files SwiftPM's plan writes (the output file map and
  /// the list of sources), which it does not write again.
  private func invalidate(modules: Set<String>) {
    let files = FileManager.default
    // The test entry point's module is named after the package.
    let entryPoint = ((try? files.contentsOfDirectory(atPath: debugFolder.path)) ?? [])
      .filter { $0.hasSuffix("PackageTests.build") }.map { String($0.dropLast(".build".count)) }
    let modules = modules.subtracting([Fingerprint.testEntryPointModule])
      .union(modules.contains(Fingerprint.testEntryPointModule) ? entryPoint : [])
    for module in modules {
      let folder = debugFolder.appendingPathComponent("\(module).build")
      for item in (try? files.contentsOfDirectory(atPath: folder.path)) ?? []
      where !["output-file-map.json", "sources", "include"].contains(item) {
        try? files.removeItem(at: folder.appendingPathComponent(item))
      }
      for suffix in ["swiftmodule", "swiftdoc", "swiftsourceinfo"] {
        try? files.removeItem(at: debugFolder.appendingPathComponent("Modules/\(module).\(suffix)"))
      }
    }
  }

  /// This build's scratch folder: one per variant and sanitizer, so that
  /// switching never rebuilds everything.
  var scratchPath: URL {
    let plain = workspace.scratchPath(for: variant)
    guard let sanitizer else { return plain }
    return plain.deletingLastPathComponent().appendingPathComponent(
      plain.lastPathComponent + "-" + sanitizer.rawValue)
  }

  /// The folder SwiftPM links this variant's products into.
  private var debugFolder: URL {
    scratchPath.appendingPathComponent("debug")
  }

  /// What the last complete build was built from.
  private var recordFile: URL {
    scratchPath.appendingPathComponent(Fingerprint.Record.fileName)
  }

  /// The last `[12/40]` step in SwiftPM's output.
  static func buildStep(in output: String) -> String? {
    guard let open = output.range(of: "[", options: .backwards),
      let close = output[open.upperBound...].firstIndex(of: "]")
    else { return nil }
    let step = output[open.upperBound..<close]
    guard step.contains("/"), step.allSatisfy({ $0.isNumber || $0 == "/" }) else { return nil }
    return String(step)
  }

  static func tail(of text: String, lines count: Int) -> String {
    text.split(separator: "\n").suffix(count).joined(separator: "\n")
  }
}
