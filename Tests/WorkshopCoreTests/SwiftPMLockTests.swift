import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

@Suite("The quick rebuild and SwiftPM share one lock")
struct SwiftPMLockTests {
  /// The shapes of scratch path whose lock file SwiftPM names differently
  /// from a naive join: links in the parent are resolved, the scratch
  /// folder's own name is kept even when it is a link, and a name longer
  /// than a file name may be keeps its end.
  enum Shape: String, CaseIterable, Sendable {
    case plain
    case linked
    case long
  }

  /// A package with no targets (SwiftPM takes its lock, then stops at once),
  /// in a folder of this test's own beside the repository's build, and the
  /// scratch path to build it in; `root` is what to remove afterwards.
  private func emptyPackage(_ shape: Shape) throws -> (package: URL, scratch: URL, root: URL) {
    let files = FileManager.default
    let build = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(".build")
    let long = shape == .long ? "-" + String(repeating: "x", count: 200) : ""
    let root = build.appendingPathComponent("workshop-lock-\(UUID().uuidString)\(long)")
    let real = root.appendingPathComponent("package")
    try files.createDirectory(at: real, withIntermediateDirectories: true)
    try """
    // swift-tools-version: 6.0
    import PackageDescription
    let package = Package(name: "Empty", targets: [])
    """.write(to: real.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    guard shape == .linked else { return (real, real.appendingPathComponent(".build/workshop"), root) }
    // The package reached through a link, and its scratch folder a link too.
    let package = root.appendingPathComponent("link")
    try files.createSymbolicLink(at: package, withDestinationURL: real)
    try files.createDirectory(
      at: real.appendingPathComponent(".build/elsewhere"), withIntermediateDirectories: true)
    try files.createSymbolicLink(
      at: real.appendingPathComponent(".build/workshop"),
      withDestinationURL: real.appendingPathComponent(".build/elsewhere"))
    return (package, package.appendingPathComponent(".build/workshop"), root)
  }

  @Test(
    "While the quick rebuild holds the lock, a SwiftPM build in the same scratch folder waits for it",
    arguments: Shape.allCases)
  func swiftPMWaits(shape: Shape) throws {
    let (package, scratch, root) = try emptyPackage(shape)
    defer { try? FileManager.default.removeItem(at: root) }
    let output = Pipe()
    let swift = Process()
    let said = try SwiftPMLock.withLock(onScratch: scratch) { () throws -> String in
      var environment = ProcessInfo.processInfo.environment
      environment["TMPDIR"] = SwiftPMLock.temporaryFolder(of: scratch).path
      swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      swift.arguments = ["swift", "build", "--package-path", package.path, "--scratch-path", scratch.path]
      swift.environment = environment
      swift.standardOutput = output
      swift.standardError = output
      try swift.run()
      // SwiftPM says so when it finds the lock taken, then waits for it; a
      // SwiftPM that took another lock goes on, and its output ends.
      var said = ""
      while !said.contains("Another instance of SwiftPM") {
        let data = output.fileHandleForReading.availableData
        if data.isEmpty { break }
        said += String(decoding: data, as: UTF8.self)
      }
      return said
    }
    #expect(
      said?.contains("Another instance of SwiftPM") == true,
      "SwiftPM did not wait for the lock the quick rebuild holds: \(said ?? "the lock was taken")")
    // Released, SwiftPM goes on (and stops: the package has nothing to build).
    swift.waitUntilExit()
  }

  @Test("The lock is free again after the quick rebuild, held while it runs, and its file stays")
  func heldWhileRunning() throws {
    let (_, scratch, root) = try emptyPackage(.plain)
    defer { try? FileManager.default.removeItem(at: root) }
    let nested = SwiftPMLock.withLock(onScratch: scratch) {
      SwiftPMLock.withLock(onScratch: scratch) { true }
    }
    #expect(nested == .some(nil), "a second taker finds it held")
    #expect(SwiftPMLock.withLock(onScratch: scratch) { true } == true)
    // A process still waiting on a deleted lock file would hold a lock that
    // nobody else takes.
    let file = SwiftPMLock.file(forScratch: scratch, temporary: SwiftPMLock.temporaryFolder(of: scratch))
    #expect(FileManager.default.fileExists(atPath: file.path))
  }

  @Test("The lock file is named as SwiftPM names it: the scratch path's components joined with _")
  func name() {
    let real = ChapterRebuild.realPath(NSTemporaryDirectory())
    let named = SwiftPMLock.file(
      forScratch: URL(fileURLWithPath: real).appendingPathComponent("course/.build/workshop"),
      temporary: URL(fileURLWithPath: "/t"))
    let expected = real.split(separator: "/").joined(separator: "_") + "_course_.build_workshop.lock"
    #expect(named.lastPathComponent == "_" + expected)
  }
}
