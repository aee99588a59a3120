import Foundation

/// The runner's own temporary folder: every process it starts gets it as
/// `TMPDIR`, and it is removed when the runner ends, by an interrupt too.
///
/// SwiftPM leaves a few empty `TemporaryDirectory.*` folders per build, and
/// code under test may leave anything: none of it outlives the run.
package final class TemporaryFolder: Sendable {
  /// The folder of this run of the runner.
  package static let shared = TemporaryFolder()

  let url: URL

  private init() {
    let base = URL(fileURLWithPath: ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory())
    url = base.appendingPathComponent("workshop-\(getpid())-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    // Also when the runner is a library in another program (its tests).
    atexit { TemporaryFolder.shared.remove() }
  }

  /// A new, empty folder inside this one.
  package func makeFolder(_ prefix: String) throws -> URL {
    let folder = url.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    // Not its parents: once the run's folder is removed, at an interrupt,
    // nothing makes it again.
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    return folder
  }

  /// Removes the folder and everything in it.
  package func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}
