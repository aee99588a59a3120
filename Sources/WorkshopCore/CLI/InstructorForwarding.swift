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
public enum InstructorForwarding {
  /// The executable product that holds the instructor's commands.
  public static let product = "workshop-instructor"

  /// The command line that builds and runs ``product`` with `arguments`
  /// (the command line given to `workshop`, without the program's name).
  public static func commandLine(_ arguments: [String], root: URL) -> [String] {
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
    let line = commandLine(arguments, root: root)
    var argv = line.map { strdup($0) } + [nil]
    execvp(line[0], &argv)
    let reason = String(cString: strerror(errno))
    for pointer in argv { free(pointer) }
    console.err("error: cannot start `\(line.prefix(5).joined(separator: " "))`: \(reason)")
    return Workshop.ExitCode.failure
  }
}
