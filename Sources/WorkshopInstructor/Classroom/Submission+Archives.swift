import Foundation
import WorkshopCore

/// Submissions handed in as archives: unpacked in the sandbox, Swift files only.
extension Submission {
  /// The archives a submission can be.
  enum ArchiveKind {
    case zip, tarGzip

    init?(_ url: URL) {
      let name = url.lastPathComponent.lowercased()
      if name.hasSuffix(".zip") {
        self = .zip
      } else if name.hasSuffix(".tar.gz") || name.hasSuffix(".tgz") {
        self = .tarGzip
      } else {
        return nil
      }
    }

    func stem(of url: URL) -> String {
      let name = url.lastPathComponent
      for suffix in [".zip", ".tar.gz", ".tgz"] where name.lowercased().hasSuffix(suffix) {
        return String(name.dropLast(suffix.count))
      }
      return name
    }

    /// The tool that unpacks its Swift files (nil when it is not installed),
    /// and its arguments. Only Swift files: a copy zipped with its `.build`
    /// holds gigabytes nobody grades.
    var tool: (executable: String?, name: String, arguments: (String, String) -> [String], package: String) {
      switch self {
      case .zip:
        (Subprocess.executable(named: "unzip"), "unzip", { ["-q", "-o", $0, "*.swift", "-d", $1] }, "unzip")
      case .tarGzip:
        (Tar.system?.path, "tar", { Tar.system?.extractSwiftFiles(from: $0, into: $1) ?? [] }, "tar")
      }
    }

    /// Whether the tool's output says no member matched.
    static func nothingMatched(_ output: String) -> Bool {
      output.contains("Not found in archive") || output.contains("filename not matched")
    }
  }

  /// Unpacks `archive` into a new folder of the runner's temporary folder.
  /// Call ``checkSize(_:of:)`` on its listing first.
  ///
  /// In the sandbox, the unpacking tool can write in that folder and nowhere
  /// else, whatever names or links the archive holds; every file it writes
  /// is bounded in size, and the whole in time.
  static func unpack(_ archive: URL, _ kind: ArchiveKind, sandbox: Sandbox?) throws -> URL {
    let tool = kind.tool
    guard let executable = tool.executable else {
      throw Problem(
        description:
          "cannot open \(archive.lastPathComponent): \(tool.name) is not installed (install the \(tool.package) package), or unpack it and grade the folder"
      )
    }
    // The archive is copied into the folder it is unpacked in, the only one
    // the tool may write: a hidden name, so it is never taken as a file of
    // the submission, and it is removed after.
    let target = try TemporaryFolder.shared.makeFolder("submission")
    let copy = target.appendingPathComponent(".workshop-archive")
    try FileManager.default.copyItem(at: archive, to: copy)
    var environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C", "WORKSHOP_TARGET": target.path]
    let tooBig = Problem(
      description:
        "\(archive.lastPathComponent) unpacks to more than \(archiveLimits.bytes >> 20) MB, whatever its listing says; not unpacked"
    )
    var outcome: ProcessOutcome
    if var sandbox {
      // Unpacked first into the sandbox's private /tmp, whose size is the
      // cap: the bytes really written are counted, not those the listing
      // states. Only then copied to the folder the grader reads.
      sandbox.limits.temporaryFiles = archiveLimits.bytes + (1 << 20)
      sandbox.limits.fileSize = archiveLimits.bytes
      let command = TestLauncher.Command(
        executable: "/bin/sh",
        arguments: [
          "-c", #"mkdir /tmp/unpacked && "$0" "$@" && cp -R /tmp/unpacked/. "$WORKSHOP_TARGET""#, executable,
        ] + tool.arguments(copy.path, "/tmp/unpacked"),
        environment: environment)
      outcome = try sandbox.run(command, shared: target, timeLimit: unpackTimeLimit)
      if !outcome.succeeded,
        ["No space left on device", "disk full", "File size limit exceeded"].contains(
          where: outcome.standardError.contains)
      {
        try? FileManager.default.removeItem(at: target)
        throw tooBig
      }
    } else {
      // Without a sandbox (macOS), each file is capped as it is written and
      // the total counted after: a bound, not the sandbox's exact one.
      environment["WORKSHOP_BLOCKS"] = String(archiveLimits.bytes / 512)
      outcome = try Subprocess.run(
        "/bin/sh",
        ["-c", #"ulimit -f "$WORKSHOP_BLOCKS" && exec "$0" "$@""#, executable]
          + tool.arguments(copy.path, target.path),
        environment: environment, timeout: unpackTimeLimit)
      if folderSize(target) > archiveLimits.bytes {
        try? FileManager.default.removeItem(at: target)
        throw tooBig
      }
    }
    try? FileManager.default.removeItem(at: copy)
    guard outcome.succeeded else {
      let output = (outcome.standardError + "\n" + outcome.standardOutput)
        .replacingOccurrences(of: target.path + "/", with: "")
        .replacingOccurrences(of: copy.path, with: archive.lastPathComponent)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      if ArchiveKind.nothingMatched(output) {
        throw Problem(description: "\(archive.lastPathComponent) holds no Swift file")
      }
      let why = outcome.timedOut ? "it took longer than \(Int(unpackTimeLimit)) s" : firstLine(of: output)
      throw Problem(description: "cannot unpack \(archive.lastPathComponent): \(why)")
    }
    return target
  }

  /// The total size of the regular files under `folder`, in bytes: hidden
  /// ones too, unlike ``Files/under(_:suffix:)``, since they fill the disk as well.
  static func folderSize(_ folder: URL) -> Int {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return 0 }
    var total = 0
    for case let path as String in enumerator {
      let attributes = try? FileManager.default.attributesOfItem(
        atPath: folder.appendingPathComponent(path).path)
      if attributes?[.type] as? FileAttributeType == .typeRegular {
        total += (attributes?[.size] as? NSNumber)?.intValue ?? 0
      }
    }
    return total
  }

  /// The most an archive may unpack, in bytes, and Swift files: a whole
  /// course is under a megabyte.
  static let archiveLimits = (bytes: 32 << 20, files: 5_000)

  /// A file an archive lists: its path in the archive, and its size as the
  /// listing states it. Names and sizes are the archive's own words: they
  /// are shown in reports and compared, never opened.
  struct ArchiveEntry: Sendable, Equatable {
    var path: String
    var size: Int
  }

  /// The regular files `archive` lists, from `unzip -l` or `tar -tvzf`:
  /// an archive unpacks only its Swift files, and the others are listed
  /// as ignored from here.
  static func listing(of archive: URL, _ kind: ArchiveKind) throws -> [ArchiveEntry] {
    let lines: [Substring]
    switch kind {
    case .zip:
      guard let unzip = Subprocess.executable(named: "unzip") else { return [] }
      lines = try Subprocess.run(unzip, ["-l", archive.path], timeout: unpackTimeLimit).standardOutput
        .split(separator: "\n")
      return lines.compactMap(zipEntry(inListingLine:))
    case .tarGzip:
      guard let tar = Tar.system else { return [] }
      lines = try Subprocess.run(tar.path, ["-tvzf", archive.path], timeout: unpackTimeLimit).standardOutput
        .split(separator: "\n")
      return lines.compactMap(tar.entry(inListingLine:))
    }
  }

  /// A file in an `unzip -l` line, "  size  date time   name"; nil for the
  /// header, the footer and folders.
  static func zipEntry(inListingLine line: Substring) -> ArchiveEntry? {
    guard let (fields, name) = splitFields(line, 3), let size = Int(fields[0]), fields[1].contains("-"),
      !name.isEmpty, !name.hasSuffix("/")
    else { return nil }
    return ArchiveEntry(path: String(name), size: size)
  }

  /// The first `count` fields of `line`, separated by spaces, and the rest
  /// after them as it is (a file name may hold spaces).
  static func splitFields(_ line: Substring, _ count: Int) -> ([Substring], Substring)? {
    var rest = line[...]
    var fields: [Substring] = []
    while fields.count < count {
      rest = rest.drop { $0 == " " }
      guard let end = rest.firstIndex(of: " ") else { return nil }
      fields.append(rest[..<end])
      rest = rest[end...]
    }
    return (fields, rest.drop { $0 == " " })
  }

  /// Refuses an archive whose Swift files, as its listing states them, are
  /// more than any submission holds: a few bytes can list gigabytes.
  static func checkSize(_ entries: [ArchiveEntry], of archive: URL) throws {
    let swift = entries.filter { $0.path.hasSuffix(".swift") }
    let bytes = swift.reduce(0) { $0 + $1.size }
    let files = swift.count
    if bytes > archiveLimits.bytes || files > archiveLimits.files {
      throw Problem(
        description:
          "\(archive.lastPathComponent) holds \(files) Swift file\(files == 1 ? "" : "s"), \(bytes >> 20) MB: more than any workshop (at most \(archiveLimits.bytes >> 20) MB and \(archiveLimits.files) files); not unpacked"
      )
    }
  }
}

/// The `tar` that unpacks `.tar.gz` submissions, and which of the two
/// common ones it is: their flags differ, and which one is first on `PATH`
/// says nothing (Homebrew's GNU tar on a Mac, bsdtar from libarchive-tools
/// on Linux).
struct Tar: Sendable, Equatable {
  enum Flavour: Sendable, Equatable {
    /// GNU tar: member names given are patterns with `--wildcards`.
    case gnu
    /// bsdtar (libarchive; macOS's `/usr/bin/tar`): patterns with `--include`.
    case bsd
  }

  var path: String
  var flavour: Flavour

  /// The system's own tar, `/usr/bin/tar` (GNU tar on Debian, bsdtar on
  /// macOS), else `/bin/tar`, else the first on `PATH`; its flavour asked
  /// from `--version`.
  static let system: Tar? = {
    let candidates = ["/usr/bin/tar", "/bin/tar"].filter { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path = candidates.first ?? Subprocess.executable(named: "tar") else { return nil }
    let version = (try? Subprocess.run(path, ["--version"], timeout: 30))?.standardOutput ?? ""
    return Tar(path: path, flavour: flavour(ofVersion: version) ?? .platformDefault)
  }()

  /// The flavour a `tar --version` names: "bsdtar 3.7.2 - libarchive…",
  /// "tar (GNU tar) 1.34".
  static func flavour(ofVersion text: String) -> Flavour? {
    if text.contains("bsdtar") { return .bsd }
    if text.contains("GNU tar") { return .gnu }
    return nil
  }

  /// The arguments that unpack only the Swift files of `archive` into `folder`.
  func extractSwiftFiles(from archive: String, into folder: String) -> [String] {
    let common = ["-xzf", archive, "-C", folder, "--no-same-owner", "--no-same-permissions"]
    switch flavour {
    case .gnu: return common + ["--wildcards", "*.swift"]
    case .bsd: return common + ["--include", "*.swift"]
    }
  }

  /// The regular file in a `tar -tvzf` line, "mode owner/group size date
  /// time name" (GNU), "mode links owner group size month day time name"
  /// (bsdtar); nil for folders and links.
  func entry(inListingLine line: Substring) -> Submission.ArchiveEntry? {
    guard line.hasPrefix("-") else { return nil }
    let count = flavour == .gnu ? 5 : 8
    guard let (fields, name) = Submission.splitFields(line, count), !name.isEmpty,
      let size = Int(fields[flavour == .gnu ? 2 : 4])
    else { return nil }
    return Submission.ArchiveEntry(path: String(name), size: size)
  }
}

extension Tar.Flavour {
  /// What a `tar` that does not say is, most likely.
  static var platformDefault: Self {
    #if os(Linux)
      .gnu
    #else
      .bsd
    #endif
  }
}
