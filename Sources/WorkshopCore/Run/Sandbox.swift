import Foundation

/// Where code under test runs: on Linux with bubblewrap installed, in a
/// sandbox; elsewhere as it is, and the runner says so once.
///
/// In the sandbox the test process sees the whole file system read-only (the
/// repository, the build and the grader's files among it), a private `/tmp`,
/// its own process IDs (its parent is not the grader, which it cannot see),
/// and no network. It runs as an unprivileged user, with limits on memory,
/// processes and the size of every file it writes, its output included, and
/// it dies with the grader.
package struct Sandbox: Sendable, Equatable {
  /// The limits a sandboxed test process runs under.
  package struct Limits: Sendable, Equatable {
    /// Address space, in bytes; `Int.max` for none.
    var memory: Int = 8 << 30
    /// Processes and threads it may add to those its user already runs:
    /// Linux counts threads too, per user, and the sandboxes of every chapter
    /// graded at once run as the same user.
    var processes: Int = 1024 + 256 * ProcessInfo.processInfo.activeProcessorCount
    /// Size of any file it writes, its standard output and error included, in bytes.
    package var fileSize: Int = 64 << 20
    /// Size of its private `/tmp`, which is memory, in bytes.
    package var temporaryFiles: Int = 512 << 20
    /// CPU time of each process, in seconds; nil for none. At the limit a
    /// process gets `SIGXCPU` (the compiler then prints what it was
    /// compiling), and `SIGKILL` ten seconds of CPU later.
    package var cpuSeconds: Int? = nil
  }

  var bubblewrap: String
  package var limits = Limits()
  /// The limits its builds run under (``defaultBuildLimits`` unless a test
  /// lowers them).
  package var buildLimits = Sandbox.defaultBuildLimits
  /// Folders the code under test must not read (each is an empty folder
  /// inside the sandbox): where the broken versions a learner's checks are
  /// graded against are written down.
  var hidden: [String] = []
  /// The user sandboxed processes run as when the grader is root. The
  /// process limit counts every process of a user: sandboxes that must not
  /// share it (the jobs of `workshop grade`) each get a user of their own.
  package var user = Sandbox.nobody
  /// When set, no process of this sandbox runs past it, and none starts
  /// after it: `grade` gives each submission a budget of time this way
  /// (``BudgetSpent``), whatever its chapters make the grader build and run.
  package var deadline: ContinuousClock.Instant? = nil

  /// Why a process was not started: the sandbox's ``deadline`` had passed.
  package struct BudgetSpent: Error, CustomStringConvertible {
    package var description: String { "the submission's time budget was spent before this step" }
  }

  /// The sandbox of this machine, if it has one.
  package static let current: Sandbox? = {
    #if os(Linux)
      if ProcessInfo.processInfo.environment["WORKSHOP_NO_SANDBOX"] == "1" { return nil }
      guard let bubblewrap = Subprocess.executable(named: "bwrap"),
        Subprocess.executable(named: "prlimit") != nil,
        Subprocess.executable(named: "setpriv") != nil
      else { return nil }
      // bubblewrap can be installed where it may not create namespaces
      // (some containers): use it only if it works.
      let sandbox = Sandbox(bubblewrap: bubblewrap)
      let probe = sandbox.wrap(
        TestLauncher.Command(executable: "/usr/bin/true", arguments: [], environment: [:]),
        shared: TemporaryFolder.shared.url)
      guard (try? Subprocess.run(probe.executable, probe.arguments, timeout: 30))?.succeeded == true else {
        return nil
      }
      return sandbox
    #else
      return nil
    #endif
  }()

  /// The one line the runner says when code under test is not sandboxed.
  package static var unavailableNote: String { unavailableNote(.english) }

  /// ``unavailableNote`` in the learner's language.
  package static func unavailableNote(_ words: Language) -> String {
    #if os(Linux)
      if ProcessInfo.processInfo.environment["WORKSHOP_NO_SANDBOX"] == "1" {
        return words(
          "not sandboxed: WORKSHOP_NO_SANDBOX=1; checks run with your permissions.",
          "没有沙箱：设置了 WORKSHOP_NO_SANDBOX=1；检查以你的权限运行。")
      }
      return words(
        "not sandboxed: install bubblewrap (apt-get install bubblewrap) to run checks in a sandbox.",
        "没有沙箱：安装 bubblewrap（apt-get install bubblewrap）后检查会在沙箱里运行。")
    #else
      return words(
        "not sandboxed: macOS has no sandbox the grader can use; checks run with your permissions.",
        "没有沙箱：macOS 上没有评分器能用的沙箱；检查以你的权限运行。")
    #endif
  }

  /// The command that runs `command` in the sandbox, with `shared` (holding
  /// the event stream) the only folder it may write besides its own `/tmp`.
  func wrap(
    _ command: TestLauncher.Command, shared: URL, readOnly: Bool = false, reaching: [String]? = nil
  ) -> TestLauncher.Command {
    wrap(
      command, writable: readOnly ? [] : [shared], readOnly: readOnly ? [shared] : [],
      reaching: reaching ?? [command.executable], temporaryFolder: "/tmp", asInit: readOnly)
  }

  /// The command that runs `command` in the sandbox, with `writable` the
  /// only folders it may write besides its own `/tmp`, `reaching` the paths
  /// its user must be able to read (the program, the package it builds), and
  /// `TMPDIR` set to `temporaryFolder`.
  /// `readOnly` folders are visible read-only (a FIFO in one can still be
  /// written); `asInit` makes the command the sandbox's process 1, which no
  /// process inside can stop or kill.
  func wrap(
    _ command: TestLauncher.Command, writable: [URL], readOnly: [URL] = [], reaching: [String],
    temporaryFolder: String, asInit: Bool = false
  ) -> TestLauncher.Command {
    // By allowlist: the system's programs and libraries, the toolchain, and
    // the folders of what it runs and reads (``visibleFolders(reaching:)``);
    // nothing else of the machine: no course root, no other submission in
    // any form, no home folder, no build of another job.
    var arguments: [String] = []
    var made: Set<String> = []
    for entry in Self.systemEntries {
      switch entry {
      case .folder(let path):
        // The folders on the way (`/opt` for `/opt/swift`), readable.
        var parents: [String] = []
        var parent = (path as NSString).deletingLastPathComponent
        while parent != "/", !parent.isEmpty, !made.contains(parent) {
          parents.insert(parent, at: 0)
          parent = (parent as NSString).deletingLastPathComponent
        }
        for parent in parents where parent != "/etc" {
          made.insert(parent)
          arguments += ["--perms", "0755", "--dir", parent]
        }
        arguments += ["--ro-bind", path, path]
      case .link(let path, let target): arguments += ["--symlink", target, path]
      }
    }
    arguments += [
      "--dev", "/dev", "--proc", "/proc",
      "--perms", "1777", "--size", String(limits.temporaryFiles), "--tmpfs", "/tmp",
      // The host's sockets (a container engine's among them) are out of reach.
      "--tmpfs", "/run",
    ]
    let visible = Self.visibleFolders(reaching: reaching)
    func isVisible(_ path: String) -> Bool {
      visible.contains { path == $0 || path.hasPrefix($0 + "/") }
    }
    // Folders bubblewrap makes on the way to a bound one (in the new root or
    // the private /tmp) would be private to root: make them readable.
    var ancestors: [String] = []
    for path in visible + (writable + readOnly).map(\.path) {
      var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
      while folder.path != "/", !isVisible(folder.path), folder.path != "/tmp" {
        if !ancestors.contains(folder.path) { ancestors.append(folder.path) }
        folder.deleteLastPathComponent()
      }
    }
    // Parents first (sorted, a parent's path is a prefix of its child's).
    for ancestor in ancestors.sorted() { arguments += ["--perms", "0755", "--dir", ancestor] }
    for folder in visible { arguments += ["--ro-bind", folder, folder] }
    for folder in hidden where FileManager.default.fileExists(atPath: folder) && isVisible(folder) {
      arguments += ["--tmpfs", folder]
    }
    for shared in writable { arguments += ["--bind", shared.path, shared.path] }
    for shared in readOnly { arguments += ["--ro-bind", shared.path, shared.path] }
    if asInit { arguments.append("--as-pid-1") }
    arguments += [
      "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
      "--die-with-parent", "--new-session", "--setenv", "TMPDIR", temporaryFolder,
      "--",
    ]
    // Root's processes are never limited in number: run as nobody, when
    // nobody can reach what it runs and reads (not in a checkout under /root).
    let processLimit: Int
    if switchesUser(reaching: reaching) {
      arguments += [
        "setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--no-new-privs",
        "--bounding-set", "-all", "--",
      ]
      processLimit = limits.processes
    } else {
      // Still root: without capabilities, so read-only stays read-only.
      if getuid() == 0 { arguments.insert(contentsOf: ["--cap-drop", "ALL"], at: arguments.count - 1) }
      processLimit = Self.userProcesses + limits.processes
    }
    arguments += [
      "prlimit", "--as=\(limits.memory == .max ? "unlimited" : String(limits.memory))",
      "--nproc=\(processLimit)", "--fsize=\(limits.fileSize)",
    ]
    if let seconds = limits.cpuSeconds { arguments.append("--cpu=\(seconds):\(seconds + 10)") }
    arguments += ["--", command.executable]
    return TestLauncher.Command(
      executable: bubblewrap, arguments: arguments + command.arguments, environment: command.environment)
  }

  /// Whether a sandboxed process started as root runs as ``user``: when
  /// that user can reach everything in `reaching`.
  func switchesUser(reaching: [String]) -> Bool {
    getuid() == 0 && reaching.allSatisfy(Self.othersCanRun)
  }

  /// Runs `command` in the sandbox, with `shared` the folder it may write in,
  /// and reports how the sandboxed process itself ended.
  ///
  /// bubblewrap's own process is the one in the runner's process group; the
  /// sandbox's init, which every process in the sandbox dies with, is told
  /// to die with it, but one killed before it could hear that would live on.
  /// So the init is also killed by its process ID, as bubblewrap reports it.
  ///
  /// With `readOnly`, the shared folder cannot be written (only a FIFO in it
  /// can), so it takes no room; the command is the sandbox's process 1; and
  /// `files` are more descriptors it gets, opened for writing by the grader.
  /// `reaching`, the programs it runs, when the command is a shell that
  /// runs another (the program itself by default).
  package func run(
    _ command: TestLauncher.Command, shared: URL, timeLimit: Double, tick: (() -> Bool)? = nil,
    readOnly: Bool = false, files: [Int32: String] = [:], reaching: [String]? = nil, input: [UInt8]? = nil
  ) throws -> ProcessOutcome {
    share(shared)
    return try run(
      wrapped: wrap(command, shared: shared, readOnly: readOnly, reaching: reaching), timeLimit: timeLimit,
      tick: tick, files: files, input: input)
  }

  /// Runs a command ``wrap(_:writable:reaching:temporaryFolder:)`` made and
  /// reports how the sandboxed process itself ended (see
  /// ``run(_:shared:timeLimit:tick:)``).
  func run(
    wrapped: TestLauncher.Command, timeLimit: Double, poll: ((String) -> Void)? = nil,
    tick: (() -> Bool)? = nil, files: [Int32: String] = [:], input: [UInt8]? = nil
  ) throws -> ProcessOutcome {
    var timeLimit = timeLimit
    if let deadline {
      let left = (deadline - ContinuousClock.now).inSeconds
      guard left > 0 else { throw BudgetSpent() }
      timeLimit = min(timeLimit, left)
    }
    // Outside the shared folder, where code under test cannot replace it.
    let info = TemporaryFolder.shared.url.appendingPathComponent("sandbox-\(UUID().uuidString).json")
    var initProcess: pid_t?
    func readInit() {
      guard initProcess == nil, let data = try? Data(contentsOf: info),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let pid = (object["child-pid"] as? NSNumber)?.int32Value
      else { return }
      initProcess = pid
      Subprocess.adopted.withLock { _ = $0.insert(pid) }
    }
    var killedBubblewrap = true
    defer {
      readInit()
      try? FileManager.default.removeItem(at: info)
      if let initProcess {
        // bubblewrap reaps its init before it exits by itself: only after
        // it was killed can the init still run (and its PID not be reused).
        if killedBubblewrap { kill(initProcess, SIGKILL) }
        Subprocess.adopted.withLock { _ = $0.remove(initProcess) }
      }
    }
    var outcome = try Subprocess.run(
      wrapped.executable, ["--info-fd", "3"] + wrapped.arguments, environment: wrapped.environment,
      timeout: timeLimit, poll: poll,
      tick: {
        readInit()
        return tick?() ?? false
      },
      files: files.merging([3: info.path]) { _, info in info }, input: input)
    killedBubblewrap = outcome.timedOut
    outcome.termination = outcome.termination.unwrapped
    return outcome
  }

  /// Lets the sandboxed process, which may run as another user, write in
  /// `folder` and the files already in it.
  func share(_ folder: URL) {
    let files = FileManager.default
    try? files.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
    for item in (try? files.contentsOfDirectory(atPath: folder.path)) ?? [] {
      try? files.setAttributes(
        [.posixPermissions: 0o666], ofItemAtPath: folder.appendingPathComponent(item).path)
    }
  }

  /// The user sandboxed processes run as when the grader is root.
  package static let nobody = 65534

  /// Whether another user can read and run (or list) `path`, through every folder above it.
  static func othersCanRun(_ path: String) -> Bool {
    var url = URL(fileURLWithPath: path)
    // What a link leads to is what must be readable.
    func mode(_ url: URL) -> Int { FileStatus(url.path, followingLinks: true)?.permissions ?? 0 }
    guard mode(url) & 0o005 == 0o005 else { return false }
    while url.path != "/" {
      url.deleteLastPathComponent()
      guard mode(url) & 0o001 != 0 else { return false }
    }
    return true
  }

  /// How many processes this user runs, counted once per run.
  private static let userProcesses: Int = {
    let outcome = try? Subprocess.run("ps", ["-U", "\(getuid())", "-o", "pid="], timeout: 30)
    return outcome.map { $0.standardOutput.split(separator: "\n").count } ?? 0
  }()
}
