import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Hands the instructor's commands, `verify` and `grade`, from the learner's
/// `workshop` to `workshop-instructor`, the runner that holds them.
///
/// A learner never runs them, so the learner's runner does not compile
/// their code (class grading, its reports, `verify`), and the compiler keeps
/// the grading library from depending on it. `swift run workshop
/// verify` keeps working: the runner replaces itself with
/// `swift run workshop-instructor verify` in the same course, which SwiftPM
/// builds on first use, and whose output, exit status and signals are then
/// the command's own.
package enum InstructorForwarding {
  /// The executable product that holds the instructor's commands.
  static let product = "workshop-instructor"

  /// The subcommands the learner's runner hands to ``product``.
  package static let subcommands = ["verify", "grade", "dev"]

  /// The command line that builds and runs ``product`` with `arguments`
  /// (the command line given to `workshop`, without the program's name).
  static func commandLine(_ arguments: [String], root: URL) -> [String] {
    ["swift", "run", "--package-path", root.path, product] + arguments
  }

  /// Replaces this process with ``commandLine(_:root:)``; returns only when
  /// that cannot start, with the exit status to end with.
  static func run(_ arguments: [String], root: URL, console: Workshop.Console) -> Int32 {
    // Nothing of this run is left behind: the process is replaced.
    TemporaryFolder.shared.remove()
    // The runner ignores SIGINT and SIGTERM to handle them itself (see
    // ``Interrupts``), and Dispatch may block signals on the thread; an
    // ignored or blocked signal stays so across `exec`. SwiftPM and the
    // instructor's runner get them as a shell would give them, as
    // ``Subprocess`` gives them to every child.
    for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { signal(signalNumber, SIG_DFL) }
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
    // A Ctrl-C that came just before is the runner's to finish: it stops here.
    Interrupts.waitIfStopping()
    // SwiftPM leaves empty folders in its TMPDIR on every run: give it one
    // under the build folder, which the instructor's runner removes first.
    let folder = handOffFolder(root: root, process: getpid())
    if (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil {
      for (name, value) in handOffEnvironment(
        folder: folder, callerTemporary: getenv("TMPDIR").map { String(cString: $0) })
      {
        setenv(name, value, 1)
      }
    }
    let line = commandLine(arguments, root: root)
    var argv = line.map { strdup($0) } + [nil]
    execvp(line[0], &argv)
    let reason = String(cString: strerror(errno))
    for pointer in argv { free(pointer) }
    console.err("error: cannot start `\(line.prefix(5).joined(separator: " "))`: \(reason)")
    return Workshop.ExitCode.failure
  }

  // MARK: - The hand-off's temporary folder

  /// Names the hand-off's temporary folder for SwiftPM, to be removed.
  static let handOffVariable = "WORKSHOP_HANDOFF_TMPDIR"
  /// The caller's own `TMPDIR`, empty when it had none, to be given back.
  static let callerTemporaryVariable = "WORKSHOP_CALLER_TMPDIR"

  /// The temporary folder of the hand-off from process `process`.
  static func handOffFolder(root: URL, process: pid_t) -> URL {
    root.appendingPathComponent(".build/workshop-handoff/\(process)")
  }

  /// The variables the hand-off sets: SwiftPM's `TMPDIR` is `folder`, and
  /// what the instructor's runner needs to undo that.
  static func handOffEnvironment(folder: URL, callerTemporary: String?) -> [String: String] {
    ["TMPDIR": folder.path, handOffVariable: folder.path, callerTemporaryVariable: callerTemporary ?? ""]
  }

  /// What the instructor's runner does first, given its environment: the
  /// folder to remove (only one the hand-off names), and the `TMPDIR` to
  /// run with (nil: none). Nil when it was not handed off.
  static func undoHandOff(_ environment: [String: String]) -> (remove: String, temporary: String?)? {
    guard let folder = environment[handOffVariable], folder.contains("/.build/workshop-handoff/") else {
      return nil
    }
    let caller = environment[callerTemporaryVariable] ?? ""
    return (folder, caller.isEmpty ? nil : caller)
  }

  /// Called first by the instructor's runner: removes the temporary folder
  /// the hand-off gave SwiftPM, with what SwiftPM left in it, and gives the
  /// process the caller's `TMPDIR` back.
  package static func finishHandOff() {
    guard let undo = undoHandOff(ProcessInfo.processInfo.environment) else { return }
    try? FileManager.default.removeItem(atPath: undo.remove)
    if let temporary = undo.temporary { setenv("TMPDIR", temporary, 1) } else { unsetenv("TMPDIR") }
    unsetenv(handOffVariable)
    unsetenv(callerTemporaryVariable)
  }
}
