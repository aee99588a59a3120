import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopLearner

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the runner keeps instead of computing again: file hashes within a
/// process, and a driver's jobs between runs.
@Suite("Answers the runner keeps")
struct KeptAnswersTests {
  @Test("A file rewritten after it was hashed, with its old size and date put back, is hashed again")
  func rewrittenFileIsHashedAgain() throws {
    let folder = try TemporaryFolder.shared.makeFolder("hash")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("Checks.swift")
    try Data("let answer = 1\n".utf8).write(to: file)
    // The hash is kept only for a file unchanged for two seconds: hashed
    // as if the clock were three seconds past its last change.
    let settled = Date(timeIntervalSince1970: try #require(FileStatus(file.path)).changed + 3)
    let first = ContentHash.of(file, now: settled)
    #expect(ContentHash.of(file, now: settled) == first)

    // The same size, and the modification date set back as it was, to the
    // nanosecond.
    let before = try #require(FileStatus(file.path))
    var status = stat()
    #expect(stat(file.path, &status) == 0)
    #if canImport(Darwin)
      let modified = status.st_mtimespec
    #else
      let modified = status.st_mtim
    #endif
    try Data("let answer = 2\n".utf8).write(to: file)
    var times = [modified, modified]
    #expect(utimensat(AT_FDCWD, file.path, &times, 0) == 0)
    #expect(try #require(FileStatus(file.path)).modified == before.modified)
    #expect(try #require(FileStatus(file.path)).size == before.size)
    #expect(ContentHash.of(file, now: settled) == ContentHash.of(Data("let answer = 2\n".utf8)))
    #expect(ContentHash.of(file, now: settled) != first)
  }

  @Test(
    "A driver's jobs are kept in a file of their own for the same command, lists and driver, and only then")
  func driverJobsAreKeptByCommand() throws {
    let folder = try TemporaryFolder.shared.makeFolder("jobs")
    defer { try? FileManager.default.removeItem(at: folder) }
    let list = folder.appendingPathComponent("sources")
    try "\(folder.path)/A.swift\n".write(to: list, atomically: true, encoding: .utf8)
    let store = DriverJobs(folder: folder.appendingPathComponent("scratch-jobs"))
    let driver = folder.appendingPathComponent("swiftc")
    try FileManager.default.copyItem(at: URL(fileURLWithPath: "/usr/bin/true"), to: driver)
    let command = [driver.path, "-module-name", "Adder-\(UUID().uuidString)", "@" + list.path]
    let jobs = [["/usr/bin/true", "-c"], ["/usr/bin/true", "-emit-module"]]
    #expect(store.jobs(for: command) == nil)
    store.keep(jobs, for: command)
    #expect(store.jobs(for: command) == jobs)

    // In its file, for the next run of the runner.
    let files = try FileManager.default.contentsOfDirectory(atPath: store.folder.path)
    #expect(files.count == 1)
    let kept = try String(contentsOf: store.folder.appendingPathComponent(files[0]), encoding: .utf8)
    #expect(kept.contains("-emit-module") && kept.contains("Adder-"))

    // Another file list (a chapter gained a file), or a new driver at the same path: asked again.
    try "\(folder.path)/A.swift\n\(folder.path)/B.swift\n".write(to: list, atomically: true, encoding: .utf8)
    #expect(store.jobs(for: command) == nil)
    try "\(folder.path)/A.swift\n".write(to: list, atomically: true, encoding: .utf8)
    #expect(store.jobs(for: command) == jobs)
    try FileManager.default.removeItem(at: driver)
    try FileManager.default.copyItem(at: URL(fileURLWithPath: "/bin/echo"), to: driver)
    #expect(store.jobs(for: command) == nil)

    // Forgotten after its jobs failed, its file too.
    store.keep(jobs, for: command)
    #expect(store.jobs(for: command) == jobs)
    store.keep(nil, for: command)
    #expect(store.jobs(for: command) == nil)
    #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder.path) == [files[0]])
  }

  @Test(
    "A link's library list that the linker's command already holds is not extracted again; one a command reads is"
  )
  func unreadAutolinks() {
    let list = "/b/debug/Kit.build/Tests.autolink"
    let extract = ["/t/swift-autolink-extract", "/b/debug/Kit.build/A.swift.o", "-o", list]
    // As `clang -###` answers: the list read, its libraries in the linker's command.
    let linker = [
      "/t/ld.lld", "/b/debug/Kit.build/A.swift.o", "-lswiftCore", "-lTesting", "-o", "/b/debug/Tests.xctest",
    ]
    #expect(ChapterRebuild.withoutUnreadAutolinks([extract, linker]) == [linker])
    // As the driver plans it: clang reads the list when it runs.
    let clang = ["/t/clang", "/b/debug/Kit.build/A.swift.o", "@" + list, "-o", "/b/debug/Tests.xctest"]
    #expect(ChapterRebuild.withoutUnreadAutolinks([extract, clang]) == [extract, clang])
    // A list another job names as it is, too.
    let reader = ["/t/tool", list]
    #expect(ChapterRebuild.withoutUnreadAutolinks([extract, reader]) == [extract, reader])
    // Other tools' jobs stay, outputs read or not.
    let compile = ["/t/swift-frontend", "-c", "A.swift", "-o", "A.o"]
    #expect(ChapterRebuild.withoutUnreadAutolinks([compile, linker]) == [compile, linker])
  }

  @Test("Jobs kept by an earlier runner, which extracted a library list nobody reads, no longer extract it")
  func keptJobsWithoutUnreadAutolinks() throws {
    let folder = try TemporaryFolder.shared.makeFolder("kept-link")
    defer { try? FileManager.default.removeItem(at: folder) }
    let workspace = Workspace(root: folder, curriculum: Curriculum(title: "T", chapters: []))
    let rebuild = ChapterRebuild(workspace: workspace, variant: .chapters, environment: [:])
    // Stand-ins for the tools: each says in the log that it ran.
    let log = folder.appendingPathComponent("ran")
    var tools: [String: String] = [:]
    for name in ["swift-autolink-extract", "ld.lld"] {
      let tool = folder.appendingPathComponent(name)
      try Data("#!/bin/sh\necho \(name) >> '\(log.path)'\n".utf8).write(to: tool)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
      tools[name] = tool.path
    }
    let list = folder.appendingPathComponent("Tests.autolink").path
    let command = [
      "/usr/bin/true", "-emit-executable", "-o", folder.appendingPathComponent("Tests.xctest").path,
    ]
    rebuild.driverJobs.keep(
      [[tools["swift-autolink-extract"]!, "A.o", "-o", list], [tools["ld.lld"]!, "A.o", "-lswiftCore"]],
      for: command)
    #expect(try rebuild.link(command))
    #expect(try String(contentsOf: log, encoding: .utf8) == "ld.lld\n")
  }
}
