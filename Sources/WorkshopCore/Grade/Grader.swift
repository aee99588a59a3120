import Foundation
import Synchronization

/// Why grading could not run at all.
public struct GradingError: Error, CustomStringConvertible {
  public var description: String
}

/// Builds a variant and grades chapters, each in its own process.
public struct Grader: Sendable {
  public var workspace: Workspace
  public var variant: Variant
  /// The hard limit for one chapter's checks, in seconds.
  public var timeLimit: Double
  /// Called with short progress lines ("Building 12/40") while work goes on.
  public var progress: (@Sendable (String) -> Void)?

  public init(
    workspace: Workspace, variant: Variant, timeLimit: Double = 60,
    progress: (@Sendable (String) -> Void)? = nil
  ) {
    self.workspace = workspace
    self.variant = variant
    self.timeLimit = timeLimit
    self.progress = progress
  }

  /// The result of building: the test product, and the chapters left out.
  public struct Build: Sendable {
    /// The test product holding every chapter that compiled.
    public var product: URL
    /// How this platform starts the product's checks.
    public var launcher: TestLauncher
    /// The first compiler errors of each chapter that does not compile.
    public var brokenChapters: [Int: [String]]
  }

  /// Builds the variant with its checks; chapters that do not compile are left
  /// out one by one so that the others can still be graded.
  ///
  /// Unless `force` is set, a build is skipped when no input changed since the
  /// last complete build: that saves a second of SwiftPM start-up per run.
  public func build(force: Bool = false) throws -> Build {
    let launcher = try TestLauncher.platform.get()
    if !force, let product = upToDateProduct(launcher) {
      return Build(product: product, launcher: launcher, brokenChapters: [:])
    }
    let started = Date()
    try? FileManager.default.removeItem(at: stampFile)
    var broken: [Int: [String]] = [:]
    let known = Set(workspace.curriculum.chapters.map(\.number))
    while true {
      var environment = Self.childEnvironment
      environment["WORKSHOP_SOLUTIONS"] = variant == .solutions ? "1" : nil
      // The learner's build leaves the runner and its tests out; the solutions
      // build keeps them, for `verify` runs the tooling's tests from it.
      environment["WORKSHOP_GRADING"] = variant == .chapters ? "1" : nil
      environment["WORKSHOP_SKIP"] =
        broken.isEmpty ? nil : broken.keys.sorted().map(String.init).joined(separator: ",")
      let arguments = [
        "build", "--build-tests", "--package-path", workspace.root.path,
        "--scratch-path", workspace.scratchPath(for: variant).path, "-Xswiftc", "-gnone",
      ]
      let progress = self.progress
      let outcome = try Subprocess.run(
        "swift", arguments, environment: environment, timeout: 30 * 60,
        poll: { output in
          guard let progress, let step = Self.buildStep(in: output) else { return }
          progress("Building \(step)")
        })
      if outcome.succeeded {
        let product = try launcher.product(in: debugFolder)
        if broken.isEmpty {
          // Stamped with the start time: an edit saved during the build is newer.
          try? Data().write(to: stampFile)
          try? FileManager.default.setAttributes([.modificationDate: started], ofItemAtPath: stampFile.path)
        }
        return Build(product: product, launcher: launcher, brokenChapters: broken)
      }
      let output = outcome.standardOutput + "\n" + outcome.standardError
      let errors = Diagnostics.compilerErrors(in: output)
      var newlyBroken: [Int: [String]] = [:]
      for error in errors {
        guard let number = Diagnostics.chapterNumber(ofPath: error.path), known.contains(number),
          broken[number] == nil
        else { continue }
        newlyBroken[number, default: []].append(workspace.relativize(error.text))
      }
      if newlyBroken.isEmpty {
        let shown =
          errors.isEmpty
          ? Self.tail(of: output, lines: 30)
          : errors.prefix(5).map { workspace.relativize($0.text) }.joined(separator: "\n")
        throw GradingError(
          description: "the build failed outside any chapter (\(variant.rawValue)):\n\(shown)")
      }
      for (number, texts) in newlyBroken { broken[number] = Array(texts.prefix(3)) }
    }
  }

  /// Grades every chapter (or those given) and returns their reports in course order.
  public func grade(_ chapters: [Curriculum.Chapter]? = nil) throws -> [ChapterReport] {
    let chapters = chapters ?? workspace.curriculum.chapters
    let build = try build()
    return run(chapters, build: build)
  }

  /// The environment the grader's builds and checks start from: this
  /// process's, without the dynamic loader's paths. Xcode sets those to its
  /// own build folder when it runs the `workshop` scheme; the test launcher
  /// sets the ones the checks need.
  static var childEnvironment: [String: String] {
    ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DYLD_") }
  }

  /// How many chapters' checks run at the same time. Most of a failing
  /// chapter's time is a hang guard waiting, not CPU, so this exceeds the cores.
  static let parallelChapters = 8

  /// Runs the checks of `chapters` from an existing build, each in its own process.
  public func run(_ chapters: [Curriculum.Chapter], build: Build) -> [ChapterReport] {
    let reports = Mutex<[Int: ChapterReport]>([:])
    let pending = chapters.filter { build.brokenChapters[$0.number] == nil }
    for chapter in chapters {
      if let errors = build.brokenChapters[chapter.number] {
        reports.withLock { $0[chapter.number] = ChapterReport(chapter: chapter, compileErrors: errors) }
      }
    }
    let finished = Mutex(0)
    let slots = DispatchSemaphore(value: Self.parallelChapters)
    let group = DispatchGroup()
    for chapter in pending {
      // Plain threads: the dispatch pool adds threads only slowly when its
      // workers block, as these do, waiting for their process.
      group.enter()
      Thread.detachNewThread {
        slots.wait()
        defer {
          slots.signal()
          group.leave()
        }
        let report = runChecks(of: chapter, build: build)
        reports.withLock { $0[chapter.number] = report }
        let count = finished.withLock { count in
          count += 1
          return count
        }
        progress?("Grading \(count)/\(pending.count)")
      }
    }
    group.wait()
    let all = reports.withLock { $0 }
    return chapters.compactMap { all[$0.number] }
  }

  /// Runs one chapter's checks in a process of its own and reads their results.
  ///
  /// If the process crashes, each check is run again alone, so that the crash
  /// fails the check that caused it and the others still get a real result.
  public func runChecks(of chapter: Curriculum.Chapter, build: Build) -> ChapterReport {
    let all = runProcess(build, filter: "^\(chapter.testModule)\\.")
    var report = ChapterReport(chapter: chapter, checks: all.checks, crash: all.crash)
    if all.timedOut {
      report.timeLimit = timeLimit
      return report
    }
    guard all.crash != nil, report.checks.count > 1 else { return report }
    report.checks = report.checks.map { check in
      let alone = runProcess(
        build, filter: "^" + NSRegularExpression.escapedPattern(for: check.id) + "$")
      guard var result = alone.checks.first(where: { $0.id == check.id }) else { return check }
      if let crash = alone.crash {
        result.status = .failed
        result.issues.append("The check crashed the process: " + crash)
      } else if alone.timedOut {
        result.status = .failed
        result.issues.append("The check did not finish within \(Int(timeLimit)) s.")
      }
      return result
    }
    return report
  }

  /// Runs the checks whose IDs match `filter` and reads the event stream.
  private func runProcess(
    _ build: Build, filter: String
  ) -> (checks: [CheckResult], crash: String?, timedOut: Bool) {
    let stream = FileManager.default.temporaryDirectory
      .appendingPathComponent("workshop-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: stream) }
    var environment = Self.childEnvironment
    environment["NO_COLOR"] = "1"
    let command = build.launcher.command(
      product: build.product,
      arguments: [
        "--filter", filter,
        "--event-stream-output-path", stream.path,
        "--event-stream-version", "0",
      ],
      environment: environment)
    let outcome: ProcessOutcome
    do {
      outcome = try Subprocess.run(
        command.executable, command.arguments, environment: command.environment, timeout: timeLimit)
    } catch {
      return ([], "could not start the checks: \(error)", false)
    }
    let text = (try? String(contentsOf: stream, encoding: .utf8)) ?? ""
    let checks = EventStream.results(fromJSONLines: text)
    var crash: String?
    if !outcome.timedOut {
      switch outcome.termination {
      case .signaled(let signal):
        crash =
          (["the checks' process was killed by \(signalName(signal))"]
          + Diagnostics.crashReason(in: outcome.standardError)).joined(separator: "\n")
      case .exited(let code) where code != 0 && code != 1:
        // Swift Testing exits 1 when checks fail; anything else is the process giving up.
        crash =
          (["the checks' process exited with code \(code)"]
          + Diagnostics.crashReason(in: outcome.standardError)).joined(separator: "\n")
      default:
        break
      }
    }
    return (checks, crash, outcome.timedOut)
  }

  /// Marks the last complete build of this variant; its date is the build's start.
  private var stampFile: URL {
    workspace.scratchPath(for: variant).appendingPathComponent("workshop-build-stamp")
  }

  /// The test product, if no input of the build changed since the last
  /// complete build; nil if a build is needed.
  func upToDateProduct(_ launcher: TestLauncher) -> URL? {
    let files = FileManager.default
    guard let stamp = try? files.attributesOfItem(atPath: stampFile.path)[.modificationDate] as? Date,
      let product = try? launcher.product(in: debugFolder)
    else { return nil }
    let root = workspace.root
    let inputs = [
      "Package.swift", Curriculum.fileName, variant == .solutions ? "Solutions" : "Chapters", "Tests",
      "Sources",
    ]
    for input in inputs {
      let url = root.appendingPathComponent(input)
      var paths = [url.path]
      if let enumerator = files.enumerator(atPath: url.path) {
        paths += enumerator.compactMap { $0 as? String }.map { url.appendingPathComponent($0).path }
      }
      for path in paths {
        // Folders count too: a deleted or added file changes its folder's date.
        guard let date = try? files.attributesOfItem(atPath: path)[.modificationDate] as? Date else {
          return nil
        }
        if date >= stamp { return nil }
      }
    }
    return product
  }

  /// The folder SwiftPM links this variant's products into.
  private var debugFolder: URL {
    workspace.scratchPath(for: variant).appendingPathComponent("debug")
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
