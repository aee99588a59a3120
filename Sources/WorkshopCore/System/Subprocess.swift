import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a child process ended.
package enum Termination: Sendable, Equatable, CustomStringConvertible {
  /// It exited with this status code.
  case exited(Int32)
  /// A signal killed it.
  case signaled(Int32)

  package var description: String {
    switch self {
    case .exited(let code): "exit code \(code)"
    case .signaled(let signal): "signal \(signal) (\(signalName(signal)))"
    }
  }
}

extension Termination {
  /// How a process ended, as a shell or bubblewrap that ran it reports it:
  /// they exit with 128 plus the number of the signal that killed it.
  var unwrapped: Termination {
    if case .exited(let code) = self, code > 128, code < 128 + 65 { return .signaled(code - 128) }
    return self
  }
}

/// The name of a POSIX signal: `SIGILL`, `SIGSEGV`...
///
/// Matched against the C library's constants, not numbers: some differ
/// between Linux and macOS (`SIGBUS` is 7 on Linux and 10 on macOS).
func signalName(_ signal: Int32) -> String {
  let names: [(Int32, String)] = [
    (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT"), (SIGQUIT, "SIGQUIT"), (SIGILL, "SIGILL"),
    (SIGTRAP, "SIGTRAP"), (SIGABRT, "SIGABRT"), (SIGBUS, "SIGBUS"), (SIGFPE, "SIGFPE"),
    (SIGKILL, "SIGKILL"), (SIGSEGV, "SIGSEGV"), (SIGPIPE, "SIGPIPE"), (SIGALRM, "SIGALRM"),
    (SIGTERM, "SIGTERM"), (SIGSYS, "SIGSYS"), (SIGXCPU, "SIGXCPU"),
  ]
  return names.first { $0.0 == signal }?.1 ?? "signal \(signal)"
}

/// What a finished child process left behind.
package struct ProcessOutcome: Sendable {
  package var termination: Termination
  /// Whether the time limit ran out and the process group was killed.
  package var timedOut: Bool
  package var standardOutput: String
  package var standardError: String

  package var succeeded: Bool { termination == .exited(0) && !timedOut }
}

/// Why a child process could not be started.
struct SubprocessError: Error, CustomStringConvertible {
  var description: String
}

/// Runs child processes in their own process group, with a hard time limit.
package enum Subprocess {
  /// The process groups of the children running now; nil once the runner
  /// is stopping, when no child may start any more.
  static let live = Mutex<Set<pid_t>?>([])

  /// Processes a child started outside its group (a sandbox's init), which
  /// an interrupt of the runner ends too.
  static let adopted = Mutex<Set<pid_t>>([])

  /// Ends every child running now, with its whole group, and lets no other
  /// start: an interrupt first (SwiftPM then cancels the compiler jobs it
  /// runs in groups of their own), for up to two seconds, then a kill.
  static func killAll() {
    let groups = live.withLock { groups -> Set<pid_t> in
      defer { groups = nil }
      return groups ?? []
    }
    for group in groups { kill(-group, SIGINT) }
    let deadline = ContinuousClock.now + .seconds(2)
    while ContinuousClock.now < deadline, groups.contains(where: { kill(-$0, 0) == 0 }) { usleep(20_000) }
    for group in groups { kill(-group, SIGKILL) }
    adopted.withLock { pids in
      for pid in pids { kill(pid, SIGKILL) }
    }
  }

  /// Runs `executable` (looked up in `PATH` unless it contains a slash) and waits.
  ///
  /// The child runs in the current directory: pass paths as arguments
  /// (`--package-path`, `git -C`). Output goes to temporary files, not pipes, so a chatty child never blocks.
  /// On timeout the whole process group is killed, exit-test children included.
  /// `poll` is called about ten times a second while the child runs, with
  /// everything it has written to standard output so far; `tick` as often,
  /// and once more after the child has ended. When `tick` answers `true`, the
  /// child is stopped as if its time were up.
  /// While it runs, the child's group is one of ``live``, which an interrupt
  /// of the runner ends.
  package static func run(
    _ executable: String,
    _ arguments: [String],
    environment: [String: String] = ProcessInfo.processInfo.environment,
    timeout: Double? = nil,
    poll: ((String) -> Void)? = nil,
    tick: (() -> Bool)? = nil,
    files: [Int32: String] = [:],
    input: [UInt8]? = nil
  ) throws -> ProcessOutcome {
    let scratch = try TemporaryFolder.shared.makeFolder("process")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outPath = scratch.appendingPathComponent("stdout").path
    let errPath = scratch.appendingPathComponent("stderr").path

    // An optional pointer on Darwin, a struct on Glibc; initialised below either way.
    #if canImport(Darwin)
      var actions: posix_spawn_file_actions_t? = nil
      var attributes: posix_spawnattr_t? = nil
    #else
      var actions = posix_spawn_file_actions_t()
      var attributes = posix_spawnattr_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // Standard input: `input` through a pipe that holds nothing else and
    // has no name (written whole and closed before the child starts: it
    // fits the pipe's buffer), or nothing.
    var inputPipe: [Int32] = [-1, -1]
    defer {
      for end in inputPipe where end >= 0 { close(end) }
    }
    if let input {
      guard input.count <= 4096, pipe(&inputPipe) == 0 else {
        throw SubprocessError(description: "cannot start \(executable): cannot prepare its input")
      }
      for end in inputPipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
      let written = input.withUnsafeBytes { write(inputPipe[1], $0.baseAddress, $0.count) }
      close(inputPipe[1])
      inputPipe[1] = -1
      guard written == input.count else {
        throw SubprocessError(description: "cannot start \(executable): cannot write its input")
      }
      posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    // Nothing else of the runner's: a descriptor some library opened without
    // close-on-exec (a file being written, a pipe) would reach every child,
    // code under test included, and keep an executable busy or a pipe open.
    // File actions run in order, so the ones opened below stay. On Darwin,
    // POSIX_SPAWN_CLOEXEC_DEFAULT below does the same.
    #if os(Linux)
      if let closeFrom = Self.addCloseFrom {
        guard closeFrom(&actions, 3) == 0 else {
          throw SubprocessError(description: "cannot start \(executable): cannot prepare its descriptors")
        }
      }
    #endif
    // More descriptors the child writes to, such as bubblewrap's --info-fd.
    for (descriptor, path) in files {
      posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    }

    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A process group of its own, so a timeout can kill everything it
    // started. On Linux, a session of its own, which is also a process
    // group of its own (its ID the child's): with the kernel's autogroup
    // scheduling (on by default), a session shares the CPU with the other
    // sessions as one, so a check's threads no longer compete, thread for
    // thread, with everything else started from the learner's shell (a
    // build, a stress test). That is where the sandbox runs them too
    // (bubblewrap's --new-session), so both paths are scheduled alike: on 2
    // loaded cores, chapter 06's overlap check decided in 0.2-0.45 s in a
    // session of its own, 1.4-2.0 s in the shell's.
    #if os(Linux)
      let group = Self.newSession
    #else
      posix_spawnattr_setpgroup(&attributes, 0)
      let group = POSIX_SPAWN_SETPGROUP
    #endif
    // Default signal handling and no blocked signals in the child, whatever
    // the runner ignores (it handles Ctrl-C itself) or this thread blocks
    // (Dispatch's threads block most signals).
    var defaults = sigset_t()
    var none = sigset_t()
    sigemptyset(&defaults)
    sigemptyset(&none)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &none)
    var flags = group | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
    #if canImport(Darwin)
      // Every descriptor not named in the file actions is closed in the child.
      flags |= POSIX_SPAWN_CLOEXEC_DEFAULT
    #endif
    posix_spawnattr_setflags(&attributes, Int16(flags))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    // A stable order: SwiftPM keys its manifest cache on the environment as
    // given, and a dictionary's order changes from one process to the next.
    let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }

    var pid = pid_t()
    // Registered under the lock that an interrupt takes, so no child starts
    // unseen while the runner is being stopped.
    let spawnStatus = live.withLock { groups in
      guard groups != nil else { return ECANCELED }
      let status = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
      if status == 0 { groups?.insert(pid) }
      return status
    }
    guard spawnStatus == 0 else {
      throw SubprocessError(
        description: "cannot start \(executable): \(String(cString: strerror(spawnStatus)))")
    }
    defer {
      // Anything the child left running in its group goes too.
      live.withLock { groups in
        kill(-pid, SIGKILL)
        _ = groups?.remove(pid)
      }
    }

    let start = ContinuousClock.now
    var status: Int32 = 0
    var timedOut = false
    while true {
      let result = waitpid(pid, &status, WNOHANG)
      if result == pid { break }
      if result == -1 && errno != EINTR {
        throw SubprocessError(description: "lost track of \(executable): \(String(cString: strerror(errno)))")
      }
      let elapsed = start.duration(to: .now)
      if let timeout, elapsed > .seconds(timeout) {
        timedOut = true
      }
      if let poll { poll(readText(outPath)) }
      if !timedOut, tick?() == true { timedOut = true }
      if timedOut {
        kill(-pid, SIGKILL)
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        break
      }
      usleep(elapsed < .seconds(1) ? 10_000 : 100_000)
    }
    _ = tick?()

    let termination: Termination =
      (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
    return ProcessOutcome(
      termination: termination, timedOut: timedOut,
      standardOutput: readText(outPath), standardError: readText(errPath))
  }

  #if os(Linux)
    /// glibc's `POSIX_SPAWN_SETSID` (2.26 and later; `<spawn.h>`), a GNU
    /// extension Swift's Glibc module leaves out: the child starts a
    /// session of its own, and with it a process group whose ID is its own.
    static let newSession: Int32 = 0x80

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later):
    /// closes every descriptor from the given one up in the child. Looked up
    /// when first used, since Swift's Glibc module leaves out GNU extensions;
    /// nil on an older C library, where children inherit what is not
    /// close-on-exec, as before.
    static let addCloseFrom:
      (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(
          symbol,
          to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
      }()
  #endif

  /// Reads at most the last 4 MiB of a file as text.
  private static func readText(_ path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
    defer { try? handle.close() }
    let limit: UInt64 = 4 << 20
    if let size = try? handle.seekToEnd(), size > limit {
      try? handle.seek(toOffset: size - limit)
    } else {
      try? handle.seek(toOffset: 0)
    }
    let data = (try? handle.readToEnd()) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}

extension Subprocess {
  /// The path of the executable `name` on `PATH` (then `/usr/bin` and
  /// `/bin`), if there is one.
  package static func executable(named name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return (path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]).map { "\($0)/\(name)" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}

extension Duration {
  /// The duration in seconds, with its fraction.
  package var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
