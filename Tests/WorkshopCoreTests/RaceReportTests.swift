import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

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

/// The same two reports as macOS's ThreadSanitizer writes them: demangled
/// names with spaces, the bare file name, no column, the binary with its
/// architecture. The shape is the one of public macOS reports (below).
private func macOSLog() -> String {
  """
  ==================
  WARNING: ThreadSanitizer: data race (pid=51212)
    Read of size 1 at 0x7b0800004018 by thread T5:
      #0 ResumeOnce.resume(with:) Bridge.swift:3 (WorkshopPackageTests:arm64+0x1abe60)
      #1 closure #1 in ProfileClient.profile(id:) <compiler-generated> (WorkshopPackageTests:arm64+0x1a9be1)
      #2 __tsan::invoke_and_release_block(void*) <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x70ebb)

    Previous write of size 1 at 0x7b0800004018 by thread T6 (mutexes: write M2419):
      #0 ResumeOnce.resume(with:) Bridge.swift:4 (WorkshopPackageTests:arm64+0x1abef9)

    Location is heap block of size 25 at 0x7b0800004000 allocated by thread T4:
      #0 malloc <null> (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x5bbb4)

  SUMMARY: ThreadSanitizer: data race Bridge.swift:3 in ResumeOnce.resume(with:)
  ==================
  ==================
  WARNING: ThreadSanitizer: Swift access race (pid=51212)
    Modifying access of Swift variable at 0x7b10000071e0 by thread T4:
      #0 closure #1 in Counter.increment() Bridge.swift:5 (WorkshopPackageTests:arm64+0x1)
    Previous modifying access of Swift variable at 0x7b10000071e0 by main thread:
      #0 closure #1 in Counter.increment() Bridge.swift:5 (WorkshopPackageTests:arm64+0x1)
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

  /// Frame lines copied as published from macOS reports: SwiftLint's TSan
  /// job (realm/SwiftLint#1944), IINA's plugin work (iina/iina#3762) and
  /// SwiftWebSocket's data race (tidwall/SwiftWebSocket#158).
  @Test(
    "Frames in macOS's form give the function, the file and the line",
    arguments: [
      (
        "    #0 File.invalidateCache() File+Cache.swift:173 (swiftlint:x86_64+0x10024616f)",
        "File.invalidateCache()", "File+Cache.swift", 173
      ),
      (
        "    #1 EventController.hasListener(for:) EventController.swift:57 (IINA:arm64+0x1002df8cc)",
        "EventController.hasListener(for:)", "EventController.swift", 57
      ),
      (
        "    #4 closure #1 in MPVController.readEvents() MPVController.swift:758 (IINA:arm64+0x1006dcba4)",
        "closure #1 in MPVController.readEvents()", "MPVController.swift", 758
      ),
      (
        "    #0 closure #1 in Manager.init() <null>:2 (App:x86_64+0x10212d834)",
        "closure #1 in Manager.init()", nil, nil
      ),
      (
        "    #0 EventController.listeners.getter <compiler-generated> (IINA:arm64+0x1002df6a0)",
        "EventController.listeners.getter", nil, nil
      ),
    ] as [(String, String, String?, Int?)])
  func macOSFrames(line: String, function: String, file: String?, number: Int?) {
    let frame = RaceReport.frame(from: line)
    #expect(frame.function == function)
    #expect(frame.file == file)
    #expect(frame.line == number)
    #expect(frame.column == nil)
  }

  @Test("A frame in Linux's form keeps its absolute path, line and column")
  func linuxFrame() {
    let frame = RaceReport.frame(
      from:
        "      #0 $s13Continuations10ResumeOnceC6resume4withSbs6ResultOyxs5Error_pG_tF /x/Bridge.swift:3:8 (WorkshopPackageTests.xctest+0x1abe60) (BuildId: 4198965a3b3c2f83d8288dc89f1819012b150949)"
    )
    #expect(frame.function == "$s13Continuations10ResumeOnceC6resume4withSbs6ResultOyxs5Error_pG_tF")
    #expect(frame.file == "/x/Bridge.swift")
    #expect(frame.line == 3)
    #expect(frame.column == 8)
  }

  @Test("A macOS report explains the race with the same file, lines and variable as a Linux one")
  func macOSExplanation() throws {
    let (workspace, path) = try workspace()
    defer { try? FileManager.default.removeItem(at: workspace.root) }
    let folders = ["Chapters/06-Continuations"]
    let linux = RaceReport.parse(log(path: path))
    let macOS = RaceReport.parse(macOSLog())
    #expect(macOS.map(\.kind) == ["data race", "Swift access race"])
    #expect(macOS[0].accesses.map(\.thread) == ["thread T5", "thread T6"])
    for (mine, theirs) in zip(macOS, linux) {
      let explained = mine.explanation(codeFolders: folders, workspace: workspace)
      let reference = theirs.explanation(codeFolders: folders, workspace: workspace)
      let head = { (text: String) in
        text.split(separator: "\n").prefix(3).map { $0.split(separator: " in ")[0] }
      }
      #expect(head(explained) == head(reference))
    }
    let text = macOS[0].explanation(codeFolders: folders, workspace: workspace)
    #expect(
      text.contains(
        "thread T5 read it at Chapters/06-Continuations/Bridge.swift:3 in ResumeOnce.resume(with:)"))
    #expect(
      text.contains("#1 closure #1 in ProfileClient.profile(id:)") == false,
      "compiler-generated frames are left out")
    // A bare file name is found in the learner's folder and shown with its path there.
    #expect(text.contains("#0 ResumeOnce.resume(with:)  Chapters/06-Continuations/Bridge.swift:3"))
  }

  @Test("A report that names a file outside the learner's folders never has that file read")
  func foreignFile() throws {
    let (workspace, path) = try workspace()
    defer { try? FileManager.default.removeItem(at: workspace.root) }
    // The same file, outside the folders the learner's code is in.
    let outside = workspace.root.appendingPathComponent("Secret.swift")
    try FileManager.default.copyItem(atPath: path, toPath: outside.path)
    let report = RaceReport.parse(log(path: outside.path))[0]
    let text = report.explanation(codeFolders: ["Chapters/06-Continuations"], workspace: workspace)
    #expect(
      text.hasPrefix("Data race (ThreadSanitizer): One thread read the same memory while another wrote it"))
    #expect(!text.contains("`resumed`"))
  }

  @Test(
    "A report whose path climbs out of the chapter with .. or a link has nothing read, named or pointed at outside it",
    arguments: ["climb", "link"])
  func forgedPathOutOfTheChapter(_ how: String) throws {
    let (workspace, path) = try workspace()
    defer { try? FileManager.default.removeItem(at: workspace.root) }
    // A file only the grader should read, whose line 3 holds a word.
    let secret = workspace.root.appendingPathComponent("Secret.swift")
    try "a\nb\nrootOnlyWord = 1\n".write(to: secret, atomically: true, encoding: .utf8)
    let folder = workspace.url("Chapters/06-Continuations")
    let forged: String
    if how == "climb" {
      // It starts with the chapter's folder, as a prefix check would want.
      forged = folder.path + "/../../Secret.swift"
    } else {
      forged = folder.appendingPathComponent("Linked.swift").path
      try FileManager.default.createSymbolicLink(atPath: forged, withDestinationPath: secret.path)
    }
    let report = RaceReport.parse(log(path: forged))[0]
    let folders = ["Chapters/06-Continuations"]
    let text = report.explanation(codeFolders: folders, workspace: workspace)
    #expect(!text.contains("rootOnlyWord"), "the forged file was read for the variable's name")
    #expect(text.hasPrefix("Data race (ThreadSanitizer): One thread read the same memory"))
    #expect(report.learnerLocation(codeFolders: folders, workspace: workspace) == nil)
    #expect(RaceReport.ownFile(forged, in: folders, workspace: workspace) == nil)
    // The chapter's own file, through the same `..` that stays inside, still counts.
    let inside = folder.path + "/../06-Continuations/Bridge.swift"
    #expect(RaceReport.ownFile(inside, in: folders, workspace: workspace) == path)
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
    // In Chinese: the same facts, the same places, the report as it is.
    let chinese = reports[0].explanation(
      codeFolders: ["Chapters/06-Continuations"], workspace: workspace, .chinese)
    let chineseLines = chinese.split(separator: "\n").map(String.init)
    #expect(chineseLines[0] == "数据竞争（ThreadSanitizer）：一个线程读取了 `resumed`，同时另一个线程写入了它，中间没有同步。")
    #expect(chineseLines[1].hasPrefix("  线程 T5 在 Chapters/06-Continuations/Bridge.swift:3"))
    #expect(chinese.contains("ThreadSanitizer 的报告："))
    #expect(
      chinese.split(separator: "\n").suffix(from: 5) == text.split(separator: "\n").suffix(from: 5),
      "the raw report is the same")
  }

  @Test("No explanation names a file of the checks: an access with no line of the learner's code says so")
  func noPlaceInTheChecks() throws {
    let (workspace, path) = try workspace()
    defer { try? FileManager.default.removeItem(at: workspace.root) }
    let checks = workspace.url("Tests/06-ContinuationsTests/ContinuationsTests.swift")
    try FileManager.default.createDirectory(
      at: checks.deletingLastPathComponent(), withIntermediateDirectories: true)
    try "a\nb\ncallbacks += 1\n".write(to: checks, atomically: true, encoding: .utf8)
    let log = """
      ==================
      WARNING: ThreadSanitizer: data race (pid=8)
        Write of size 8 at 0x720800004018 by thread T5:
          #0 $s13Continuations4OnceC6resumeSbyF \(path):5:11 (WorkshopPackageTests.xctest+0x1abe60)
          #1 $s17ContinuationsTests4FakeC8callBackyyF \(checks.path):3:9 (WorkshopPackageTests.xctest+0x1)

        Previous write of size 8 at 0x720800004018 by thread T6:
          #0 $s17ContinuationsTests4FakeC8callBackyyF \(checks.path):3:9 (WorkshopPackageTests.xctest+0x1)

      SUMMARY: ThreadSanitizer: data race \(checks.path):3:9 in $s17ContinuationsTests4FakeC8callBackyyF
      ==================
      """
    let report = try #require(RaceReport.parse(log).first)
    let folders = ["Chapters/06-Continuations"]
    let text = report.explanation(codeFolders: folders, workspace: workspace)
    #expect(!text.contains("Tests/") && !text.contains("ContinuationsTests.swift"), "\(text)")
    #expect(text.contains("thread T5 wrote it at Chapters/06-Continuations/Bridge.swift:5"))
    #expect(text.contains("thread T6 wrote it with no line of your code in its stack"))
    #expect(
      report.learnerLocation(codeFolders: folders, workspace: workspace)
        == "Chapters/06-Continuations/Bridge.swift:5")
  }
}
