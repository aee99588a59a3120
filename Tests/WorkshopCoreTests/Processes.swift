import Foundation

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// Waits, for at most `seconds`, until `condition` holds; returns whether it did.
///
/// For what other processes do (start, exit, die), which no gate can tell the
/// test: polled, with a real-time bound that only a failing grader reaches.
func eventually(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while ContinuousClock.now < deadline {
    if try condition() { return true }
    usleep(50_000)
  }
  return try condition()
}

/// The command lines of this machine's processes that satisfy `predicate`.
/// `ps` answers on Linux and macOS alike.
func processes(where predicate: (Substring) -> Bool) throws -> [Substring] {
  try Subprocess.run("ps", ["-eo", "args="]).standardOutput.split(separator: "\n").filter(predicate)
}
