import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// The installed tar of a flavour, found by asking each candidate what it is.
private func tar(_ flavour: Tar.Flavour) -> Tar? {
  for candidate in ["/usr/bin/tar", "/bin/tar", "bsdtar", "gtar", "tar"] {
    guard let path = candidate.hasPrefix("/") ? candidate : Subprocess.executable(named: candidate),
      FileManager.default.isExecutableFile(atPath: path),
      let version = try? Subprocess.run(path, ["--version"], timeout: 30).standardOutput,
      Tar.flavour(ofVersion: version) == flavour
    else { continue }
    return Tar(path: path, flavour: flavour)
  }
  return nil
}

@Suite("Unpacking .tar.gz submissions with either tar")
struct TarTests {
  @Test(
    "Each tar's version line tells its flavour",
    arguments: [
      ("tar (GNU tar) 1.34\nCopyright (C) 2021 Free Software Foundation, Inc.", Tar.Flavour.gnu),
      ("bsdtar 3.7.2 - libarchive 3.7.2 zlib/1.2.12 liblzma/5.4.3 bz2lib/1.0.8", .bsd),
      ("bsdtar 3.5.3 - libarchive 3.5.3 zlib/1.2.11 liblzma/5.0.5 bz2lib/1.0.8", .bsd),
    ])
  func flavours(version: String, flavour: Tar.Flavour) {
    #expect(Tar.flavour(ofVersion: version) == flavour)
  }

  @Test("A tar that names neither flavour is not guessed from its words")
  func unknownFlavour() {
    #expect(Tar.flavour(ofVersion: "tar 1.0 (busybox)") == nil)
    #expect(Tar.flavour(ofVersion: "") == nil)
  }

  @Test("Each tar's listing, and unzip's, give each file's name and size; folders and links are not files")
  func listingEntries() {
    let gnu = Tar(path: "/usr/bin/tar", flavour: .gnu)
    let bsd = Tar(path: "/usr/bin/tar", flavour: .bsd)
    let file = Submission.ArchiveEntry(path: "a/My Code.swift", size: 1234)
    #expect(gnu.entry(inListingLine: "-rw-r--r-- me/staff     1234 2026-12-01 10:00 a/My Code.swift") == file)
    #expect(
      bsd.entry(inListingLine: "-rw-r--r--  0 me     staff    1234 Dec  1 10:00 a/My Code.swift") == file)
    #expect(gnu.entry(inListingLine: "drwxr-xr-x me/staff        0 2026-12-01 10:00 a/") == nil)
    #expect(gnu.entry(inListingLine: "lrwxrwxrwx me/staff        0 2026-12-01 10:00 a/b -> /etc") == nil)
    #expect(Submission.zipEntry(inListingLine: "     1234  2026-12-01 10:00   a/My Code.swift") == file)
    for line in [
      "Archive:  work.zip", "  Length      Date    Time    Name", "---------  ---------- -----   ----",
      "        0  2026-12-01 10:00   a/", "     1234                     1 file",
    ] {
      #expect(Submission.zipEntry(inListingLine: line[...]) == nil, "\(line)")
    }
  }

  @Test(
    "GNU tar unpacks only the Swift files",
    .enabled(if: tar(.gnu) != nil, "no GNU tar here (macOS: brew install gnu-tar gives gtar)"))
  func gnu() throws {
    try unpacksOnlySwift(with: #require(tar(.gnu)))
  }

  @Test(
    "bsdtar unpacks only the Swift files",
    .enabled(
      if: tar(.bsd) != nil,
      "no bsdtar here (scripts/install-tools.sh installs it: apt-get install libarchive-tools)"))
  func bsd() throws {
    try unpacksOnlySwift(with: #require(tar(.bsd)))
  }

  private func unpacksOnlySwift(with tar: Tar) throws {
    let folder = try TemporaryFolder.shared.makeFolder("tar-test")
    defer { try? FileManager.default.removeItem(at: folder) }
    let packed = folder.appendingPathComponent("packed/work/Chapters/01-Adder")
    try FileManager.default.createDirectory(at: packed, withIntermediateDirectories: true)
    try "let one = 1\n".write(
      to: packed.appendingPathComponent("Adder.swift"), atomically: true, encoding: .utf8)
    try Data(count: 1000).write(to: packed.appendingPathComponent("big.bin"))
    let archive = folder.appendingPathComponent("work.tar.gz").path
    let packing = try Subprocess.run(
      tar.path, ["-czf", archive, "-C", folder.appendingPathComponent("packed").path, "work"], timeout: 60)
    try #require(packing.succeeded, "\(packing.standardError)")
    let listing = try Subprocess.run(tar.path, ["-tvzf", archive], timeout: 60).standardOutput
    let line = try #require(listing.split(separator: "\n").first { $0.hasSuffix(".swift") })
    #expect(
      tar.entry(inListingLine: line)
        == Submission.ArchiveEntry(path: "work/Chapters/01-Adder/Adder.swift", size: 12))
    let target = folder.appendingPathComponent("unpacked")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    let outcome = try Subprocess.run(
      tar.path, tar.extractSwiftFiles(from: archive, into: target.path), timeout: 60)
    #expect(outcome.succeeded, "\(outcome.standardError)")
    let files = try FileManager.default.subpathsOfDirectory(atPath: target.path).filter { path in
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(
        atPath: target.appendingPathComponent(path).path, isDirectory: &isFolder)
      return !isFolder.boolValue
    }
    #expect(files == ["work/Chapters/01-Adder/Adder.swift"])
  }
}
