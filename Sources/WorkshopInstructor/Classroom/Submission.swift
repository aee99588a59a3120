import Foundation
import WorkshopCore

/// One learner's work handed in: a copy of the workshop, its `Chapters/`
/// folder, or a `.zip` or `.tar.gz` of either.
///
/// Only the Swift files in `Chapters/NN-Name/` of the course's chapters are
/// taken; the rest (the submission's `Tests/`, `curriculum.json`,
/// `Package.swift`, `.build/`, hidden files, links) is listed as ignored and
/// never read, so a submission cannot change what grades it.
struct Submission: Sendable {
  /// The name reports use: the folder's or the archive's, without extension.
  var name: String
  /// What the instructor gave, as given.
  var source: String
  /// Each chapter's Swift files by number: paths relative to the chapter's
  /// folder, to their text. A chapter the submission lacks is absent.
  var chapters: [Int: [String: String]]
  /// What was not taken, relative to the submission, with why when it is not
  /// simply "not part of a chapter".
  var ignored: [String]
  /// What a person should look at (see `ReviewScan` in WorkshopCore).
  var flags: [ReviewScan.Flag]

  /// The most a chapter's Swift files may hold together, in bytes.
  static let chapterSizeLimit = 1 << 20
  /// How long unpacking an archive may take, in seconds.
  static let unpackTimeLimit = 60.0

  /// Why a submission cannot be read.
  struct Problem: Error, CustomStringConvertible {
    var description: String
  }

  /// Reads the submission at `path` for `course`. An archive is unpacked in a
  /// folder of its own, in `sandbox` when given.
  static func load(_ path: String, course: Workspace, sandbox: Sandbox?) throws -> Submission {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
      throw Problem(description: "\(path) does not exist")
    }
    let name: String
    let root: URL
    if isFolder.boolValue {
      name = url.lastPathComponent
      root = url
    } else if let kind = ArchiveKind(url) {
      name = kind.stem(of: url)
      let entries = try listing(of: url, kind)
      try checkSize(entries, of: url)
      root = try unpack(url, kind, sandbox: sandbox)
      // Everything is read into memory: the unpacked files go at once.
      defer { try? FileManager.default.removeItem(at: root) }
      return try read(
        root, name: name, source: path, course: course,
        notUnpacked: entries.filter { !$0.path.hasSuffix(".swift") })
    } else {
      throw Problem(
        description:
          "\(path) is not a folder, a .zip or a .tar.gz: hand in a copy of the workshop or its Chapters/ folder"
      )
    }
    return try read(root, name: name, source: path, course: course)
  }

  /// Reads an unpacked submission whose top folder is `root`. An archive's
  /// files that were not unpacked (all but its Swift files) come as
  /// `notUnpacked`, paths from the archive's top, and are listed as ignored
  /// by the same rules as a folder's.
  static func read(
    _ root: URL, name: String, source: String, course: Workspace, notUnpacked: [ArchiveEntry] = []
  ) throws -> Submission {
    let folders = course.curriculum.chapters.map(\.folder)
    guard let (chaptersFolder, bare) = findChapters(in: root, chapterFolders: Set(folders), depth: 3) else {
      throw Problem(
        description:
          "\(source) holds no chapter: no Chapters/ folder and no chapter folder such as \(folders.first ?? "01-Name")/ in it"
      )
    }
    var submission = Submission(name: name, source: source, chapters: [:], ignored: [], flags: [])
    // Paths are shown from the copy of the workshop: `Chapters/...`, `Tests/...`.
    let base = bare ? chaptersFolder : chaptersFolder.deletingLastPathComponent()
    let prefix = bare ? "" : "Chapters/"
    var taken: Set<String> = []
    // The archive's other files, from the same base as the walk's paths;
    // those outside it (macOS's __MACOSX/ beside the top folder) are no
    // more listed than a folder's are.
    let baseInRoot = relative(base, to: root)
    var listed: [String: Int] = [:]
    for entry in notUnpacked {
      var path = entry.path
      while path.hasPrefix("./") { path.removeFirst(2) }
      if baseInRoot.isEmpty {
        listed[path] = entry.size
      } else if path.hasPrefix(baseInRoot + "/") {
        listed[String(path.dropFirst(baseInRoot.count + 1))] = entry.size
      }
    }
    for chapter in course.curriculum.chapters {
      let folder = chaptersFolder.appendingPathComponent(chapter.folder)
      guard isRealFolder(folder) else { continue }
      var sources: [String: String] = [:]
      var size = 0
      for path in walk(folder, limit: 10_000) {
        let shown = prefix + chapter.folder + "/" + path
        let file = folder.appendingPathComponent(path)
        guard path.hasSuffix(".swift"), !Files.isHidden(path) else {
          if (path as NSString).lastPathComponent != "README.md" { submission.ignored.append(shown) }
          continue
        }
        guard isRegularFile(file) else {
          submission.ignored.append(shown + " (a link or not a regular file: not followed)")
          continue
        }
        let fileSize = Int(FileStatus(file.path)?.size ?? 0)
        guard size + fileSize <= chapterSizeLimit else {
          submission.ignored.append(shown + " (the chapter's Swift files exceed 1 MB)")
          continue
        }
        guard let data = try? Data(contentsOf: file), let decoded = String(data: data, encoding: .utf8) else {
          submission.ignored.append(shown + " (not UTF-8 text)")
          continue
        }
        size += fileSize
        // Windows line ends, as a zip made on Windows has them: the same
        // code, with lines every tool splits alike.
        let text = decoded.replacingOccurrences(of: "\r\n", with: "\n")
        sources[path] = text
        taken.insert(shown)
        let scanned = ReviewScan.scan(["Chapters/\(chapter.folder)/\(path)": text])
        submission.flags += scanned
      }
      for shown in listed.keys.sorted() where shown.hasPrefix(prefix + chapter.folder + "/") {
        if (shown as NSString).lastPathComponent != "README.md" { submission.ignored.append(shown) }
      }
      // What reaches beyond the exercise, listed for review at its line;
      // what the chapter may not contain keeps it from being built, and it
      // scores nothing. One flag a line: the rules' reason, which reads the
      // tokens, over the scan's.
      let violations = chapter.attacksTheGrader ? [] : ChapterRules.violations(in: sources, of: chapter)
      let found = Set(violations.map { "Chapters/\(chapter.folder)/\($0.path):\($0.line)" })
      submission.flags.removeAll { found.contains($0.location) }
      let refusedLines = Set(violations.filter(\.isRefused).map { "\($0.path):\($0.line)" })
      var flagged: Set<String> = []
      for violation in violations
      where violation.isRefused || !refusedLines.contains("\(violation.path):\(violation.line)") {
        let location = "Chapters/\(chapter.folder)/\(violation.path):\(violation.line)"
        guard flagged.insert(location).inserted else { continue }
        let lines = sources[violation.path]?.split(separator: "\n", omittingEmptySubsequences: false) ?? []
        let line = violation.line - 1 < lines.count ? lines[violation.line - 1] : ""
        submission.flags.append(
          ReviewScan.Flag(
            location: location,
            reason: violation.reason + (violation.isRefused ? " (not built: scores nothing)" : ""),
            code: String(line.trimmingCharacters(in: .whitespaces).prefix(120))))
      }
      submission.chapters[chapter.number] = sources
    }
    // Everything else, summarised by top folder: a .build can hold 100,000
    // files. Hidden entries (.git/, .build/) and the course's own files as
    // it ships them (Solutions/, Mutations/, Package.swift, ...) come with a
    // clone handed in whole and are not the learner's: a learner reading
    // their report sees only what they added or changed.
    var others: [String: Int] = [:]
    let limit = 20_000
    let everything = Array(Set(walk(base, limit: limit)).union(listed.keys.prefix(limit))).sorted()
    for shown in everything {
      if taken.contains(shown) { continue }
      if shown.hasPrefix(prefix), folders.contains(where: { shown.hasPrefix(prefix + $0 + "/") }) { continue }
      let top = shown.split(separator: "/").first.map(String.init) ?? shown
      if top.hasPrefix(".")
        || (!bare && isShipped(shown, from: base, course: course, listedSize: listed[shown]))
      {
        continue
      }
      let key = top == shown ? top : top + "/"
      others[key, default: 0] += 1
    }
    let summary = others.keys.sorted().map { key in
      let count = others[key]!
      let more = everything.count >= limit ? " or more" : ""
      return key.hasSuffix("/") ? "\(key) (\(count)\(more) file\(count == 1 ? "" : "s"))" : key
    }
    submission.ignored = summary + submission.ignored
    return submission
  }

  /// The chapters folder: `Chapters/` in `root`, `root` itself when it holds
  /// chapter folders, or the same one level down (an archive's top folder).
  static func findChapters(in root: URL, chapterFolders: Set<String>, depth: Int) -> (URL, bare: Bool)? {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    let chapters = root.appendingPathComponent("Chapters")
    if names.contains("Chapters"), isRealFolder(chapters) { return (chapters, false) }
    if names.contains(where: { chapterFolders.contains($0) && isRealFolder(root.appendingPathComponent($0)) })
    {
      return (root, true)
    }
    guard depth > 1 else { return nil }
    // macOS's Archive Utility adds __MACOSX/ beside the archived folder.
    let visible = names.filter {
      !$0.hasPrefix(".") && $0 != "__MACOSX" && isRealFolder(root.appendingPathComponent($0))
    }
    guard visible.count == 1 else { return nil }
    return findChapters(
      in: root.appendingPathComponent(visible[0]), chapterFolders: chapterFolders, depth: depth - 1)
  }

  // MARK: - Files, never through a link

  /// Paths of every file under `folder`, relative to it, sorted; links are
  /// listed, never followed.
  /// Whether the file at `path` under `base` is the course's own file as
  /// the course ships it: the same path and the same bytes; for a file an
  /// archive lists but did not unpack (`listedSize`), the same path and the
  /// size it lists.
  private static func isShipped(_ path: String, from base: URL, course: Workspace, listedSize: Int? = nil)
    -> Bool
  {
    let theirs = course.root.appendingPathComponent(path).path
    if let listedSize {
      return FileStatus(theirs, followingLinks: true).map { Int($0.size) == listedSize } ?? false
    }
    let mine = base.appendingPathComponent(path).path
    guard let size = FileStatus(theirs, followingLinks: true)?.size, FileStatus(mine)?.size == size,
      let shipped = FileManager.default.contents(atPath: theirs)
    else { return false }
    return FileManager.default.contents(atPath: mine) == shipped
  }

  static func walk(_ folder: URL, limit: Int = .max) -> [String] {
    var found: [String] = []
    func visit(_ url: URL, _ relative: String) {
      guard found.count < limit else { return }
      let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
      for name in names {
        let child = url.appendingPathComponent(name)
        let path = relative.isEmpty ? name : relative + "/" + name
        if isRealFolder(child) {
          visit(child, path)
        } else {
          found.append(path)
        }
      }
    }
    visit(folder, "")
    return found
  }

  private static func fileType(_ url: URL) -> FileAttributeType? {
    (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
  }

  static func isRealFolder(_ url: URL) -> Bool { fileType(url) == .typeDirectory }
  static func isRegularFile(_ url: URL) -> Bool { fileType(url) == .typeRegular }

  static func relative(_ url: URL, to root: URL) -> String {
    Files.components(of: url, under: root)?.joined(separator: "/") ?? url.path
  }
}
