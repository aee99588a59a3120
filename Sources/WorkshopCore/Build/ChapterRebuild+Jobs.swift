import Foundation

// MARK: - Running the drivers' jobs directly

extension ChapterRebuild {
  /// Compiles a module: the compiler jobs the driver would run, side by side.
  /// Their output together is what the driver would print.
  func compile(_ arguments: [String]) throws -> ProcessOutcome {
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
    // Kept by an earlier runner too, which ran every job it was given.
    if let kept = driverJobs.jobs(for: arguments) { return Self.withoutUnreadAutolinks(kept) }
    guard let asked = expand(arguments) else { return nil }
    driverJobs.keep(asked, for: arguments)
    return asked
  }

  /// The drivers' answers, kept beside the scratch folder (see ``DriverJobs``).
  var driverJobs: DriverJobs {
    let scratch = self.scratch
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
    return Self.withoutUnreadAutolinks(expanded)
  }

  /// `jobs` without each `swift-autolink-extract` whose output no other job
  /// names. The driver's link writes the libraries the objects ask for to
  /// a list that `clang` reads (`@….autolink`); asked for its own jobs,
  /// `clang` has read it already, and the linker's command names those
  /// libraries itself. Extracting them again, a process and a sandbox per
  /// link, would write a file nobody reads. (When the objects come to ask
  /// for a library the command lacks, the link fails, the kept jobs are
  /// dropped and the driver links and writes the list again.)
  static func withoutUnreadAutolinks(_ jobs: [[String]]) -> [[String]] {
    jobs.filter { job in
      guard URL(fileURLWithPath: job[0]).lastPathComponent == "swift-autolink-extract",
        let flag = job.firstIndex(of: "-o"), flag + 1 < job.count
      else { return true }
      let output = job[flag + 1]
      return jobs.contains { other in
        other != job && other.contains { $0 == output || $0 == "@" + output }
      }
    }
  }

  func run(_ arguments: [String]) throws -> ProcessOutcome {
    guard let executable = arguments.first else { throw GradingError(description: "an empty command") }
    // Each job a temporary folder of its own, removed after it: a driver
    // asked for its jobs (`-###`) leaves behind the folder it would have
    // used, and jobs run side by side (the versions' links).
    let scratch = self.scratch
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

  /// Runs `compile` for each module, two at a time (each compile runs its
  /// own jobs side by side): per module, what `compile` returned with a
  /// success, or its first errors. A compiler that failed without an error
  /// throws: the quick path does not apply.
  func compileSideBySide(
    _ entries: [Planned], _ compile: @escaping @Sendable (Planned) throws -> (ProcessOutcome, Bool)
  ) throws -> [Result<Bool, CompileErrors>] {
    let workspace = self.workspace
    let results = concurrentMap(entries, width: 2) {
      entry -> Result<Result<Bool, CompileErrors>, QuickPathError> in
      do {
        let (outcome, value) = try compile(entry)
        guard !outcome.succeeded else { return .success(.success(value)) }
        // After a failed compile the interface may be new while the checks
        // were built against the old one: without it, the next build
        // compiles the checks again, and SwiftPM the module.
        if let interface = entry.interface { try? FileManager.default.removeItem(at: interface) }
        let errors = Diagnostics.compilerErrors(in: outcome.standardOutput + "\n" + outcome.standardError)
        guard !errors.isEmpty else { return .failure(QuickPathError("the compiler failed without an error")) }
        return .success(.failure(CompileErrors(errors.prefix(3).map { workspace.relativize($0.text) })))
      } catch {
        return .failure(QuickPathError("\(error)"))
      }
    }
    return try results.map { try $0.get() }
  }

  /// A module's first compiler errors.
  struct CompileErrors: Error, Sendable {
    var errors: [String]
    init(_ errors: [String]) { self.errors = errors }
  }

  /// Why the quick path stopped.
  struct QuickPathError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
