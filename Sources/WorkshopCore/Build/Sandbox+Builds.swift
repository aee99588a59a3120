import Foundation

extension Sandbox {
  /// The limits a sandboxed build runs under: every compiler and linker
  /// process gets at most 6 GiB of address space and 240 s of CPU time (a
  /// chapter compiles in seconds; the course's largest module, its checks,
  /// in about 15 s of CPU here, and a ThreadSanitizer build in twice that),
  /// more file size than a test process, and as much temporary room as the
  /// toolchain writes. A kilobyte of nested tuple types can keep the type
  /// checker busy for hours: it is stopped here, and the chapter it was
  /// compiling is reported (``Builder/limitMessage(_:)``). A sandbox's
  /// ``buildLimits`` start as these.
  package static let defaultBuildLimits = Limits(
    memory: 6 << 30, processes: 1024 + 256 * ProcessInfo.processInfo.activeProcessorCount,
    fileSize: 4 << 30, temporaryFiles: 1 << 30, cpuSeconds: 240)

  /// Runs a build's tool (SwiftPM, or one compiler or linker job of a quick
  /// rebuild) in the sandbox.
  ///
  /// Compiling and linking learner code is running it: a file can carry
  /// linker options, and a linker can be made to run a program. So the tool
  /// runs where only `scratch`, the build's own folder, is writable; the
  /// package it reads (`package`), the toolchain and the rest of the machine
  /// are read-only, the folders in ``hidden`` empty, the network and the
  /// host's sockets out of reach. As root it runs as ``user``, who is given
  /// `scratch`. `HOME` is a folder of the scratch folder's, so SwiftPM's
  /// caches stay with the build they belong to. `TMPDIR` is
  /// `temporaryFolder`, a folder inside `scratch`; by default the scratch
  /// folder's own, the same every time (SwiftPM keys its manifest cache on it).
  ///
  /// ```swift
  /// let outcome = try sandbox.build(
  ///   "swift", ["build", "--package-path", copy.path, "--scratch-path", scratch.path],
  ///   environment: Grader.childEnvironment, package: copy, scratch: scratch, timeLimit: 1800)
  /// ```
  func build(
    _ tool: String, _ arguments: [String], environment: [String: String], package: URL, scratch: URL,
    temporaryFolder: URL? = nil, timeLimit: Double, poll: ((String) -> Void)? = nil
  ) throws -> ProcessOutcome {
    // A tool is looked up here, never in a folder the build can write.
    guard let executable = tool.contains("/") ? tool : Subprocess.executable(named: tool) else {
      throw GradingError(description: "\(tool) is not installed (not in PATH)")
    }
    guard !executable.hasPrefix(package.path + "/"), !executable.hasPrefix(scratch.path + "/") else {
      throw GradingError(description: "\(executable) is inside the build's own folders: it is not run")
    }
    var sandbox = self
    sandbox.limits = buildLimits
    // The package's own folders stay: a build of versions of a component
    // reads them, while a check must not.
    sandbox.hidden = hidden.filter { !($0 == package.path || $0.hasPrefix(package.path + "/")) }
    let home = scratch.appendingPathComponent("home")
    let temporary = temporaryFolder ?? SwiftPMLock.temporaryFolder(of: scratch)
    for folder in [home, temporary] {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    let reaching = [executable, package.path]
    if sandbox.switchesUser(reaching: reaching) {
      // Every time, the whole folder (some 1,500 files): the runner writes
      // in it too (SwiftPM's lock file, an unsandboxed build's files, the
      // link lists of a suite's versions, linked in parallel).
      do {
        try Ownership.give(scratch, to: user)
      } catch {
        throw GradingError(description: "could not give the build folder to the sandbox's user: \(error)")
      }
    }
    var environment = environment
    environment["HOME"] = home.path
    let command = TestLauncher.Command(executable: executable, arguments: arguments, environment: environment)
    return try sandbox.run(
      wrapped: sandbox.wrap(
        command, writable: [scratch], reaching: reaching, temporaryFolder: temporary.path),
      timeLimit: timeLimit, poll: poll)
  }
}
