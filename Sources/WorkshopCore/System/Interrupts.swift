import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ends the runner cleanly on Ctrl-C (`SIGINT`) or `SIGTERM`: every process
/// it started is killed with its group, its temporary folder is removed, and
/// it exits with 128 plus the signal's number (130 or 143), as shells expect.
package enum Interrupts {
  /// Kept alive for the life of the process.
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

  /// The signal being handled, 0 for none.
  private static let received = Atomic<Int32>(0)

  /// Whether the runner is stopping for a signal: it prints nothing more.
  package static var isStopping: Bool { received.load(ordering: .acquiring) != 0 }

  /// Returns unless the runner is stopping for a signal; then waits for the
  /// handler to end the process, so that work that finished meanwhile can
  /// neither exit with its own status nor skip the clean-up.
  package static func waitIfStopping() {
    while isStopping { sleep(60) }
  }

  /// Work to undo before the runner exits on a signal or a quit (a terminal
  /// left in raw mode, for example).
  private static let cleanups = Mutex<[@Sendable () -> Void]>([])

  /// Runs `cleanup` when the runner stops for a signal or ``quit()``.
  static func onStop(_ cleanup: @escaping @Sendable () -> Void) {
    cleanups.withLock { $0.append(cleanup) }
  }

  /// Ends the runner now, as a signal would, but with exit status 0: `watch`
  /// when the learner presses `q`.
  package static func quit() -> Never {
    stop(signal: SIGTERM, status: 0)
  }

  private static func stop(signal signalNumber: Int32, status: Int32) -> Never {
    received.store(signalNumber, ordering: .releasing)
    Subprocess.killAll()
    TemporaryFolder.shared.remove()
    for cleanup in cleanups.withLock({ $0 }) { cleanup() }
    // Erase a half-drawn status line on a terminal.
    if isatty(STDERR_FILENO) == 1 { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    exit(status)
  }

  /// Installs the handlers; call once, before starting any process.
  package static func install() {
    for signalNumber in [SIGINT, SIGTERM] {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler { stop(signal: signalNumber, status: 128 + signalNumber) }
      source.resume()
      sources.append(source)
    }
  }
}
