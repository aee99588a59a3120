import Foundation
import Testing

@testable import WorkshopCore

@Suite("The one walk over a folder's files")
struct FilesTests {
  @Test(
    "Lists files, not folders, sorted, by path relative to the folder; hidden ones and hidden folders left out"
  )
  func walk() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    for path in [
      "b.swift", "a.swift", "notes.md", "Sub/c.swift", ".hidden.swift", ".build/debug/x.swift",
      "Sub/.cache/y.swift", "Empty/",
    ] {
      let url = root.appendingPathComponent(path)
      if path.hasSuffix("/") {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      } else {
        try FileManager.default.createDirectory(
          at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("// \(path)\n".utf8).write(to: url)
      }
    }
    #expect(Files.under(root) == ["Sub/c.swift", "a.swift", "b.swift", "notes.md"])
    #expect(Files.under(root, suffix: ".swift") == ["Sub/c.swift", "a.swift", "b.swift"])
    #expect(Files.under(root.appendingPathComponent("Missing")).isEmpty)
    #expect(Files.isHidden("Sub/.cache/y.swift") && !Files.isHidden("Sub/c.swift"))
  }
}
