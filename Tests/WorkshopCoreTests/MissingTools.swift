import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// Why a test that needs a tool this machine lacks is skipped, in one line
/// that says how to get the tool, or why this platform cannot have it.
///
/// `workshop verify` prints these lines and counts the tests neither way, so
/// the course verifies on a machine with only the Swift toolchain.
enum MissingTool {
  /// The tests of the sandbox itself, and of grading inside it.
  static let sandbox: Comment = {
    #if os(Linux)
      "bubblewrap is not installed here, or cannot create namespaces (scripts/install-tools.sh installs it: apt-get install bubblewrap)"
    #else
      "the sandbox is bubblewrap's, which macOS does not have; grading without it is tested here"
    #endif
  }()

  /// Whether `name` is on this machine.
  static func has(_ name: String) -> Bool { Subprocess.executable(named: name) != nil }

  /// For a tool that Debian packages as `package` and macOS ships.
  static func reason(_ name: String, debianPackage package: String) -> Comment {
    #if os(Linux)
      Comment(
        rawValue:
          "\(name): not installed here (scripts/install-tools.sh installs it: apt-get install \(package))")
    #else
      Comment(rawValue: "\(name): not on PATH (macOS ships it in /usr/bin)")
    #endif
  }
}
