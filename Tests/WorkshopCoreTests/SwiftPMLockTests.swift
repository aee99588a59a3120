import Foundation
import Testing

@testable import WorkshopCore

@Suite("The quick rebuild and SwiftPM share one lock")
struct SwiftPMLockTests {
  /// A package with no targets, in a folder of this test's own beside the
  /// repository's build: SwiftPM takes its lock, then stops at once.
  private func emptyPackage() throws -> URL {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(".build/workshop-lock-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try """
    // swift-tools-version: 6.0
    import PackageDescription
    let package = Package(name: "Empty", targets: [])
    """.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    return folder
  }

  @Test("While the quick rebuild holds the lock, a SwiftPM build in the same scratch folder waits for it")
  func swiftPMWaits() throws {
    let package = try emptyPackage()
    defer { try? FileManager.default.removeItem(at: package) }
    let scratch = package.appendingPathComponent(".build/workshop")
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

  @Test("The lock is free again after the quick rebuild, and held while it runs")
  func heldWhileRunning() throws {
    let package = try emptyPackage()
    defer { try? FileManager.default.removeItem(at: package) }
    let scratch = package.appendingPathComponent(".build/workshop")
    let nested = SwiftPMLock.withLock(onScratch: scratch) {
      SwiftPMLock.withLock(onScratch: scratch) { true }
    }
    #expect(nested == .some(nil), "a second taker finds it held")
    #expect(SwiftPMLock.withLock(onScratch: scratch) { true } == true)
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
