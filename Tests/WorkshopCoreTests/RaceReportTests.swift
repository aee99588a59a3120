import Foundation
import Testing

@testable import WorkshopCore

/// A ThreadSanitizer log as this toolchain writes it, trimmed, for a file at `path`.
private func log(path: String) -> String {
  """
  ==================
  WARNING: ThreadSanitizer: data race (pid=8)
    Read of size 1 at 0x720800004018 by thread T5:
      #0 $s13Continuations10ResumeOnceC6resume4withSbs6ResultOyxs5Error_pG_tF \(path):3:8 (WorkshopPackageTests.xctest+0x1abe60) (BuildId: 4198965a3b3c2f83d8288dc89f1819012b150949)
      #1 $s13Continuations13ProfileClientV7profile2id <compiler-generated> (WorkshopPackageTests.xctest+0x1a9be1)

    Previous write of size 1 at 0x720800004018 by thread T6:
      #0 $s13Continuations10ResumeOnceC6resume4withSbs6ResultOyxs5Error_pG_tF \(path):4:13 (WorkshopPackageTests.xctest+0x1abef9) (BuildId: 4198965a3b3c2f83d8288dc89f1819012b150949)

    Location is heap block of size 25 at 0x720800004000 allocated by thread T4:
      #0 malloc /llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (WorkshopPackageTests.xctest+0x8e420)

  SUMMARY: ThreadSanitizer: data race \(path):3:8 in $s13Continuations10ResumeOnceC6resume4withSbs6ResultOyxs5Error_pG_tF
  ==================
  ==================
  WARNING: ThreadSanitizer: Swift access race (pid=8)
    Modifying access of Swift variable at 0x7210000071e0 by thread T4:
      #0 count \(path):5:11 (x+0x1)
    Previous modifying access of Swift variable at 0x7210000071e0 by main thread:
      #0 count \(path):5:11 (x+0x1)
  ==================
  """
}

@Suite("ThreadSanitizer reports")
struct RaceReportTests {
  /// A chapter file whose lines 3 to 5 touch `resumed` and `count`.
  private func workspace() throws -> (Workspace, String) {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("race-\(UUID().uuidString)")
    let folder = root.appendingPathComponent("Chapters/06-Continuations")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("Bridge.swift")
    try """
    final class Once: @unchecked Sendable {
      func resume() -> Bool {
        if resumed { return false }
        resumed = true
        count += 1
      }
    }
    """.write(to: file, atomically: true, encoding: .utf8)
    return (Workspace(root: root, curriculum: Curriculum(title: "T", chapters: [])), file.path)
  }

  @Test("Every report of a log is read, with its kind and its two accesses")
  func parse() throws {
    let reports = RaceReport.parse(log(path: "/x/Bridge.swift"))
    #expect(reports.map(\.kind) == ["data race", "Swift access race"])
    #expect(reports[0].accesses.map(\.verb) == ["read", "wrote"])
    #expect(reports[0].accesses.map(\.thread) == ["thread T5", "thread T6"])
    #expect(reports[0].accesses[0].frames.first?.line == 3)
    #expect(reports[0].accesses[1].frames.first?.column == 13)
    #expect(reports[1].accesses.map(\.verb) == ["changed", "changed"])
    #expect(reports[1].accesses.map(\.thread) == ["thread T4", "the main thread"])
    #expect(!reports[0].raw.contains("BuildId"))
  }

  @Test("The explanation names the variable and the learner's lines, in plain words first")
  func explanation() throws {
    let (workspace, path) = try workspace()
    defer { try? FileManager.default.removeItem(at: workspace.root) }
    let reports = RaceReport.parse(log(path: path))
    let text = reports[0].explanation(codeFolders: ["Chapters/06-Continuations"], workspace: workspace)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(
      lines[0]
        == "Data race (ThreadSanitizer): One thread read `resumed` while another wrote it, without synchronisation."
    )
    #expect(lines[1].hasPrefix("  thread T5 read it at Chapters/06-Continuations/Bridge.swift:3"))
    #expect(lines[2].hasPrefix("  thread T6 wrote it at Chapters/06-Continuations/Bridge.swift:4"))
    #expect(text.contains("ThreadSanitizer's report:"))
    #expect(!text.contains(workspace.root.path))
    // `count += 1` is reported at the operator: the name before it counts.
    let second = reports[1].explanation(codeFolders: ["Chapters/06-Continuations"], workspace: workspace)
    #expect(
      second.hasPrefix("Data race (ThreadSanitizer): Two threads changed `count` without synchronisation."))
  }
}
