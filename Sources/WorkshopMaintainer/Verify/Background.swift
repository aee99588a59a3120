import Foundation
import Synchronization

/// Work `verify` runs on a thread of its own from the moment it is made,
/// and whose result it reports later: the steps that wait on other
/// programs, or read the course, beside the steps that build and grade.
///
/// ```swift
/// let scan = Background { Portability.findings(inPackage: root, folders: ["Sources"]) }
/// gradeTheSolutions()  // meanwhile, the scan runs
/// report(scan.value())  // waits for the scan, if it is still running
/// ```
final class Background<Value: Sendable>: Sendable {
  private let finished = DispatchSemaphore(value: 0)
  private let result = Mutex<Value?>(nil)

  /// Starts `work` on a new thread.
  init(_ work: @escaping @Sendable () -> Value) {
    Thread.detachNewThread { [self] in
      let value = work()
      result.withLock { $0 = value }
      finished.signal()
    }
  }

  /// Waits for the work to end and returns what it gave; later calls return
  /// the same value at once.
  func value() -> Value {
    finished.wait()
    finished.signal()
    return result.withLock { $0! }
  }
}
