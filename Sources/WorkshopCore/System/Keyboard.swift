import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Single key presses from a terminal, for `watch`'s `q`.
///
/// The terminal is put in a mode where each key arrives at once and is not
/// echoed; Ctrl-C still ends the runner through ``Interrupts``. The terminal's
/// own mode comes back however the runner stops.
package enum Keyboard {
  /// Whether standard input is a terminal the learner types into.
  package static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

  /// Calls `onKey` with each key pressed, on a thread of its own, until the
  /// process ends. Does nothing when standard input is not a terminal.
  package static func listen(_ onKey: @escaping @Sendable (Character) -> Void) {
    guard isInteractive else { return }
    var original = termios()
    guard tcgetattr(STDIN_FILENO, &original) == 0 else { return }
    var raw = original
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
    guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return }
    let saved = original
    let restore: @Sendable () -> Void = {
      var mode = saved
      tcsetattr(STDIN_FILENO, TCSANOW, &mode)
    }
    Interrupts.onStop(restore)
    restoreAtExit = restore
    atexit { Keyboard.restoreAtExit?() }
    Thread.detachNewThread {
      var byte: UInt8 = 0
      while read(STDIN_FILENO, &byte, 1) == 1 {
        onKey(Character(UnicodeScalar(byte)))
      }
    }
  }

  /// Restores the terminal when the process exits normally.
  nonisolated(unsafe) private static var restoreAtExit: (@Sendable () -> Void)?
}
