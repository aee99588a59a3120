import Foundation

/// Rebuilds chapters whose files were edited without SwiftPM: one chapter
/// after a save in `watch`, a fix in each of several chapters in each of
/// `verify`'s rounds.
///
/// Starting SwiftPM costs about 0.6 s before it compiles anything, more than
/// the rest of an edit's feedback together, and its driver a start per
/// module. When the only change since the last build is the content of
/// chapters' existing files, the build plan SwiftPM wrote at its last build
/// (`debug.yaml`) still holds every command the edit needs: this runs those
/// commands itself, the compiler and linker jobs SwiftPM's drivers would
/// run, and nothing else:
/// 1. each changed chapter's module, compiled whole (a changed file whose
///    date did not change, to the second, is compiled all the same);
/// 2. a chapter's checks, only when the chapter's interface changed;
/// 3. the test product, linked again in place, with the linker and options
///    SwiftPM planned (see ``Builder/linkerArguments``).
///
/// Anything else (a file added or removed, a checks or manifest change, a
/// chapter left out of the last build, another build running in the same
/// folder, a link that fails) is ``Outcome/unavailable(_:)``, and the caller
/// builds with SwiftPM as usual. The next SwiftPM build compiles the modules
/// built here again, whole (``Fingerprint/Record/quickBuilt``), so its state
/// stays right.
///
/// ```swift
/// let rebuild = ChapterRebuild(workspace: copy, variant: .chapters, environment: environment)
/// if case .built(let build, _) = rebuild.rebuildChanged(after: last) { … } else { … SwiftPM … }
/// ```
package struct ChapterRebuild: Sendable {
  var workspace: Workspace
  var variant: Variant
  var environment: [String: String]
  /// The sandbox the compiler and linker jobs run in, as SwiftPM's builds
  /// do (see ``Builder/sandbox``); nil runs them unsandboxed.
  var sandbox: Sandbox?
  /// The modules this may compile: by default each chapter's (see
  /// ``chapterModules(in:variant:)``).
  var modules: [Module]
  /// The scratch folder of the build this starts from: by default the
  /// variant's plain build's; a sanitizer's build has one of its own (see
  /// ``Builder/scratchPath``).
  var scratch: URL

  package init(workspace: Workspace, variant: Variant, environment: [String: String], sandbox: Sandbox? = nil)
  {
    self.workspace = workspace
    self.variant = variant
    self.environment = environment
    self.sandbox = sandbox
    self.modules = Self.chapterModules(in: workspace, variant: variant)
    self.scratch = workspace.scratchPath(for: variant)
  }

  /// A module the quick path compiles: the target SwiftPM builds from the
  /// Swift files under `folder`.
  struct Module: Sendable, Equatable {
    /// The module's name, as the plan keys its compile (`C.<name>-…-debug.module`).
    var name: String
    /// The folder of its sources, relative to the workspace's root.
    var folder: String
    /// The modules compiled against its interface, compiled again when it changes.
    var dependents: [String]
    /// The chapter whose code it is: a compile error in it breaks that
    /// chapter alone. Nil: an error makes the quick path step aside.
    var chapter: Int?

    init(name: String, folder: String, dependents: [String] = [], chapter: Int? = nil) {
      self.name = name
      self.folder = folder
      self.dependents = dependents
      self.chapter = chapter
    }
  }

  /// Each chapter's module, with its checks as its dependent; a chapter
  /// whose checks the learner writes is that test module, on which nothing
  /// depends.
  static func chapterModules(in workspace: Workspace, variant: Variant) -> [Module] {
    workspace.curriculum.chapters.map { chapter in
      Module(
        name: chapter.codeModule, folder: workspace.codeFolder(chapter, variant),
        dependents: chapter.writesChecks ? [] : [chapter.testModule], chapter: chapter.number)
    }
  }

  package enum Outcome: Sendable {
    /// The chapter compiled and the test product was linked again;
    /// `checksRebuilt` when the chapter's checks had to be compiled again.
    case built(Build, checksRebuilt: Bool)
    /// The chapter does not compile: its first errors.
    case compileErrors([String])
    /// The quick path does not apply; why, for tests and logs.
    case unavailable(String)
  }

  /// What rebuilding the changed modules gave.
  enum RoundOutcome: Sendable {
    /// The test product holds every module that compiled (linked again,
    /// unless none did). The build's `brokenChapters` are the chapters that
    /// did not, with their first errors; `checksRebuilt`, the chapters whose
    /// checks had to be compiled again.
    case built(Build, checksRebuilt: Set<Int>)
    /// The quick path does not apply; why, for tests and logs.
    case unavailable(String)
  }

  /// Rebuilds `chapter` on top of `last`, the build graded before the edit.
  /// A chapter whose checks the learner writes is graded with builds of its
  /// own (its checks against each version of its component), which `watch`
  /// leaves to SwiftPM.
  package func rebuild(_ chapter: Curriculum.Chapter, after last: Build) -> Outcome {
    guard !chapter.writesChecks else { return .unavailable("the chapter is graded with builds of its own") }
    switch rebuild(only: modules.filter { $0.chapter == chapter.number }, after: last) {
    case .unavailable(let reason):
      return .unavailable(reason)
    case .built(let build, let checksRebuilt):
      if let errors = build.brokenChapters[chapter.number] { return .compileErrors(errors) }
      return .built(build, checksRebuilt: checksRebuilt.contains(chapter.number))
    }
  }

  /// Rebuilds, on top of `last`, every module whose own files changed since
  /// the last build of this scratch folder, SwiftPM's or a quick one.
  ///
  /// A chapter that does not compile is in the build's `brokenChapters`,
  /// as in a SwiftPM build that leaves it out: the product may hold some of
  /// its objects, old or new, but its checks are not run, and it is
  /// compiled again next time.
  func rebuildChanged(after last: Build) -> RoundOutcome {
    rebuild(only: nil, after: last)
  }

  /// Rebuilds `wanted`, or the changed modules when nil.
  private func rebuild(only wanted: [Module]?, after last: Build) -> RoundOutcome {
    let scratch = self.scratch
    // SwiftPM locks its scratch folder while it builds; so does this, with
    // SwiftPM's own lock, before reading what SwiftPM wrote there.
    return SwiftPMLock.withLock(onScratch: scratch) { rebuild(wanted, after: last, in: scratch) }
      ?? .unavailable("another build is running")
  }

  /// One module's planned commands: its own, and its dependents'.
  struct Planned {
    var module: Module
    var compile: PlannedCommand
    var dependents: [PlannedCommand]
    /// The module's compiled interface, which its dependents are compiled against.
    var interface: URL? {
      compile.outputs.first { $0.hasSuffix(".swiftmodule") }.map { URL(fileURLWithPath: $0) }
    }
  }

  /// ``rebuild(only:after:)``, holding SwiftPM's lock on `scratch`.
  private func rebuild(_ wanted: [Module]?, after last: Build, in scratch: URL) -> RoundOutcome {
    // The plan must be the one the last complete SwiftPM build wrote: any
    // SwiftPM run since (one that left a chapter out, or was interrupted)
    // rewrote it.
    let recordFile = scratch.appendingPathComponent(Fingerprint.Record.fileName)
    guard
      let planText = try? String(contentsOf: scratch.appendingPathComponent("debug.yaml"), encoding: .utf8),
      let record = Fingerprint.Record.load(from: recordFile),
      record.plan == ContentHash.of(Data(planText.utf8)),
      // …and the product the one `last` holds: no build ran here since.
      record.product == Fingerprint.identity(of: last.product)
    else { return .unavailable("the build plan is not the last build's") }
    let plan = Plan(planText)
    // The inputs are read before compiling: an edit saved meanwhile is a change.
    let states = Fingerprint.states(workspace: workspace, variant: variant)
    // Nothing outside the modules changed; the ones asked for are compiled
    // whether their files changed or not.
    guard let changed = Self.changed(wanted ?? modules, states: states, record: record) else {
      return .unavailable("files outside the chapter changed")
    }
    let changing = wanted ?? changed
    guard let link = plan.command(key: "C.", suffix: "-debug.test") else {
      return .unavailable("the build plan has no link of the checks")
    }
    var planned: [Planned] = []
    for module in changing {
      let compile = plan.command(key: "C.\(module.name)-", suffix: "-debug.module")
      let dependents = module.dependents.compactMap {
        plan.command(key: "C.\($0)-", suffix: "-debug.module")
      }
      guard let compile, dependents.count == module.dependents.count else {
        return .unavailable("the last build left \(module.name) out")
      }
      // The plan must be for the files the module has now.
      let folder = workspace.url(module.folder).path
      let plannedFiles = Set(compile.inputs.filter { $0.hasSuffix(".swift") }.map(Self.realPath))
      let present = Set(Self.swiftFiles(in: folder).map(Self.realPath))
      guard plannedFiles == present else {
        return .unavailable("\(module.folder)'s files were added or removed")
      }
      planned.append(Planned(module: module, compile: compile, dependents: dependents))
    }
    // A chapter the last build left out stays out; the others are decided here.
    var build = last
    build.brokenChapters = last.brokenChapters.filter { number, _ in
      !planned.contains { $0.module.chapter == number }
    }
    guard !planned.isEmpty else { return .built(build, checksRebuilt: []) }

    let builder = Builder(workspace: workspace, variant: variant, environment: environment)
    for entry in planned {
      if let number = entry.module.chapter,
        let chapter = workspace.curriculum.chapters.first(where: { $0.number == number }),
        let problems = builder.precheck(only: chapter)
      {
        build.brokenChapters[number] = problems
      }
    }
    func isBroken(_ entry: Planned) -> Bool {
      entry.module.chapter.map { build.brokenChapters[$0] != nil } ?? false
    }
    // SwiftPM's record of a module compiled here is stale from the moment
    // it is: its next build compiles it again, whole, whatever happens next.
    var updated = record
    func markQuickBuilt(_ modules: [String]) {
      updated.quickBuilt = Array(Set(updated.quickBuilt ?? []).union(modules)).sorted()
      updated.save(to: recordFile)
    }
    do {
      // Each module, then the dependents of those whose interface changed.
      let compiling = planned.filter { !isBroken($0) }
      markQuickBuilt(compiling.map(\.module.name))
      let compiled = try compileSideBySide(compiling) { entry in
        let before = entry.interface.map(Fingerprint.hash) ?? ""
        let outcome = try self.compile(entry.compile.arguments)
        let changed = before.isEmpty || entry.interface.map(Fingerprint.hash) != before
        return (outcome, changed && !entry.dependents.isEmpty)
      }
      var failed: [String: [String]] = [:]
      var checking: [Planned] = []
      for (entry, result) in zip(compiling, compiled) {
        switch result {
        case .failure(let errors): failed[entry.module.name] = errors.errors
        case .success(true): checking.append(entry)
        case .success(false): break
        }
      }
      markQuickBuilt(checking.flatMap(\.module.dependents))
      let checked = try compileSideBySide(checking) { entry in
        // Only modules with dependents are here.
        var outcome = try self.compile(entry.dependents[0].arguments)
        for dependent in entry.dependents.dropFirst() where outcome.succeeded {
          outcome = try self.compile(dependent.arguments)
        }
        return (outcome, true)
      }
      for (entry, result) in zip(checking, checked) {
        if case .failure(let errors) = result { failed[entry.module.name] = errors.errors }
      }
      for entry in compiling {
        guard let errors = failed[entry.module.name] else { continue }
        // Only a chapter's own module may fail on its own.
        guard let number = entry.module.chapter else {
          return .unavailable("\(entry.module.name) does not compile")
        }
        build.brokenChapters[number] = errors
      }
      let built = compiling.filter { failed[$0.module.name] == nil }
      // A module that did not compile may have written some of its objects
      // (its jobs run side by side, each on some of its files), or all of
      // them when its checks are what failed: its files leave the record,
      // so that it is a change, compiled again, until it compiles, whatever
      // its files hold by then.
      let failedPrefixes = compiling.filter { failed[$0.module.name] != nil }.map { $0.module.folder + "/" }
      updated.files = updated.files.filter { path, _ in !failedPrefixes.contains { path.hasPrefix($0) } }
      // Nothing compiled: the product is the last one, and it still holds
      // the last code of every chapter that is now broken.
      guard !built.isEmpty else {
        updated.save(to: recordFile)
        return .built(build, checksRebuilt: [])
      }
      guard try self.link(link.arguments) else { return .unavailable("the link failed") }
      let product = try last.launcher.product(in: scratch.appendingPathComponent("debug"))
      // The product is now what SwiftPM would have built from these inputs:
      // the next run reuses it, and the next quick rebuild starts from it.
      let prefixes = built.map { $0.module.folder + "/" }
      func isBuilt(_ path: String) -> Bool { prefixes.contains { path.hasPrefix($0) } }
      updated.files = updated.files.filter { !isBuilt($0.key) }
        .merging(states.filter { isBuilt($0.key) }) { _, new in new }
      updated.product = Fingerprint.identity(of: product)
      updated.save(to: recordFile)
      build.product = product
      return .built(
        build,
        checksRebuilt: Set(checking.filter { failed[$0.module.name] == nil }.compactMap(\.module.chapter)))
    } catch {
      return .unavailable("\(error)")
    }
  }
}
