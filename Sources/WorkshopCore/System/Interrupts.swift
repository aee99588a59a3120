import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ends the runner cleanly on Ctrl-C (`SIGINT`) or `SIGTERM`: every process
/// it started is killed with its group, its temporary folder is removed, and
/// it exits with 128 plus the signal's number (130 or 143), as shells expect.
public enum Interrupts {
  /// Kept alive for the life of the process.
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

  /// Installs the handlers; call once, before starting any process.
  public static func install() {
    for signalNumber in [SIGINT, SIGTERM] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler {
        Subprocess.killAll()
        TemporaryFolder.shared.remove()
        // Erase a half-drawn status line on a terminal.
        if isatty(STDERR_FILENO) == 1 { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        exit(128 + signalNumber)
      }
      source.resume()
      sources.append(source)
    }
  }
}
