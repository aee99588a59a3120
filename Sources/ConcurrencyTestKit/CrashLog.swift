import CheckTranscript
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeps what the Swift runtime says when an exit test's process crashes, so
/// that the check shows the learner's own crash (a nil force unwrap, say) in
/// the runtime's words, before the check's own words on what usually causes
/// the crash it guards against.
///
/// An exit test's process does not share the test's standard error, and an
/// exit test that fails returns no result to read it from; so the exit test
/// writes its standard error to a file named after the check and the test
/// process, and the check reads it back:
///
///     let result = await #expect(
///       processExitsWith: .success,
///       "The app survives ... A crash here usually comes from resuming a continuation twice."
///     ) {
///       CrashLog.keepStandardError(of: "both")
///       ...
///     }
///     CrashLog.explain(result, of: "both")
public enum CrashLog {
  /// Inside the exit test: sends its standard error to the file for `name`.
  public static func keepStandardError(of name: String) {
    let descriptor = open(file(name, testProcess: getppid()).path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { return }
    dup2(descriptor, STDERR_FILENO)
    close(descriptor)
  }

  /// After the exit test: when it failed and the runtime said why, records
  /// what it said. A process that ended for another reason (the body threw,
  /// or an expectation in it failed) has no runtime message, and gets none.
  public static func explain(
    _ result: ExitTest.Result?, of name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let url = file(name, testProcess: getpid())
    defer { try? FileManager.default.removeItem(at: url) }
    // A result means the process ended as expected.
    guard result == nil else { return }
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    let said = RuntimeMessage.lines(in: text)
    guard !said.isEmpty else { return }
    EventLog.record(Verdict(behaviour: "", events: [], runtimeSaid: said), sourceLocation: sourceLocation)
  }

  private static func file(_ name: String, testProcess: pid_t) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("exit-test-\(testProcess)-\(name).stderr")
  }
}
