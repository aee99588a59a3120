import Foundation

/// The chapters' files as the course shipped them, found again whatever the
/// learner did since: edited, deleted, committed or pushed.
///
/// `curriculum.json` records the content hash of every file in each
/// chapter's folder as shipped (`starter`); `verify` keeps that record true in
/// the course. The content itself is looked up by that hash in two places:
/// 1. `.workshop/starters/<hash>`: every run of the runner keeps there each
///    chapter file it sees with shipped content, so a copy downloaded as a zip
///    (no Git) can go back as long as the runner ran once before the edit;
/// 2. the Git history of the learner's copy: any commit that holds the file
///    with that content, so a learner who committed their work, or cloned
///    and edited before the first run, can still go back.
package struct Starters: Sendable {
  var workspace: Workspace

  package init(workspace: Workspace) {
    self.workspace = workspace
  }

  /// Where shipped content is kept by hash.
  var store: URL { workspace.stateDirectory.appendingPathComponent("starters") }

  /// The files of a chapter's `Chapters/` folder now, by name, with their content hash.
  package func current(_ chapter: Curriculum.Chapter) -> [String: String] {
    let folder = workspace.url(workspace.codeFolder(chapter, .chapters))
    var files: [String: String] = [:]
    for name in Files.under(folder) {
      files[name] = ContentHash.of(folder.appendingPathComponent(name))
    }
    return files
  }

  /// Whether the learner changed a chapter's code: a Swift file differs from
  /// the shipped one, or was added or removed.
  func isEdited(_ chapter: Curriculum.Chapter) -> Bool {
    guard !chapter.starter.isEmpty else { return false }
    let swift = { (files: [String: String]) in files.filter { $0.key.hasSuffix(".swift") } }
    return swift(current(chapter)) != swift(chapter.starter)
  }

  /// The chapters in which the learner writes the checks whose files are
  /// still the shipped ones (a chapter without a recorded starter is never
  /// taken for untouched): the progress table leaves their grading against
  /// the component's versions for later (see ``Grader/versionsPending``).
  package func untouchedLearnerChecks() -> Set<Int> {
    Set(
      workspace.curriculum.chapters.filter { $0.writesChecks && !$0.starter.isEmpty && !isEdited($0) }.map(
        \.number))
  }

  /// The chapters whose versions a grading of `count` chapters leaves for
  /// later: none when one chapter is asked for or saved alone (`check 13`,
  /// `watch 13`, a save), else the untouched ones (the table, `watch`'s
  /// other chapters), so that every view counts the same state the same.
  package func versionsLeftForLater(gradingChapters count: Int) -> Set<Int> {
    count == 1 ? [] : untouchedLearnerChecks()
  }

  /// The newest modification date of a chapter's Swift files.
  func lastEdit(_ chapter: Curriculum.Chapter) -> Date? {
    let folder = workspace.url(workspace.codeFolder(chapter, .chapters))
    return current(chapter).keys.filter { $0.hasSuffix(".swift") }.compactMap {
      FileStatus(folder.appendingPathComponent($0).path).map { Date(timeIntervalSince1970: $0.modified) }
    }.max()
  }

  /// Keeps a copy of every chapter file whose content is the shipped one.
  /// Cheap when there is nothing new to keep; failures are ignored (it is a
  /// convenience for `reset`, which says when it finds nothing).
  package func remember() {
    for chapter in workspace.curriculum.chapters {
      let folder = workspace.url(workspace.codeFolder(chapter, .chapters))
      for (name, hash) in current(chapter) where chapter.starter[name] == hash {
        let kept = store.appendingPathComponent(hash)
        guard !FileManager.default.fileExists(atPath: kept.path) else { continue }
        try? FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try? FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: kept)
      }
    }
  }

  /// The shipped content of `name` in `chapter`, from the store or from Git.
  func shippedContent(of name: String, in chapter: Curriculum.Chapter) -> Data? {
    guard let hash = chapter.starter[name] else { return nil }
    if let data = try? Data(contentsOf: store.appendingPathComponent(hash)), ContentHash.of(data) == hash {
      return data
    }
    let path = workspace.codeFolder(chapter, .chapters) + "/" + name
    guard
      let log = try? Subprocess.run(
        "git", ["-C", workspace.root.path, "log", "--all", "--format=%H", "--max-count=500", "--", path]),
      log.succeeded
    else { return nil }
    for commit in log.standardOutput.split(separator: "\n") {
      guard let shown = try? Subprocess.run("git", ["-C", workspace.root.path, "show", "\(commit):\(path)"]),
        shown.succeeded
      else { continue }
      let data = Data(shown.standardOutput.utf8)
      if ContentHash.of(data) == hash { return data }
    }
    return nil
  }

  /// What a reset did.
  package struct Reset: Sendable {
    /// Where the learner's files were copied first; nil when the chapter
    /// had no files of its own.
    package var backup: URL?
    /// The files put back as shipped.
    var restored: [String]
    /// Files the learner added, moved to the backup.
    package var removed: [String]
  }

  /// Why a chapter cannot be reset.
  struct ResetError: Error, CustomStringConvertible {
    var description: String
  }

  /// Copies the chapter's folder to `.workshop/backups/<folder>/<time>/`,
  /// then puts back every shipped file and removes the Swift files the
  /// course did not ship. Nothing changes unless every shipped file is found.
  package func reset(_ chapter: Curriculum.Chapter, at time: Date = Date()) throws -> Reset {
    guard !chapter.starter.isEmpty else {
      throw ResetError(
        description: "curriculum.json does not record chapter \(chapter.paddedNumber)'s starter.")
    }
    var contents: [String: Data] = [:]
    for name in chapter.starter.keys.sorted() {
      guard let data = shippedContent(of: name, in: chapter) else {
        throw ResetError(
          description: """
            cannot find \(workspace.codeFolder(chapter, .chapters))/\(name) as the course shipped it: \
            this copy has no Git history holding it, and the runner had not kept it before it was changed. \
            Download the chapter's folder from the course again. Nothing was changed.
            """)
      }
      contents[name] = data
    }
    let files = FileManager.default
    let folder = workspace.url(workspace.codeFolder(chapter, .chapters))
    let now = current(chapter)
    var backup: URL?
    if !now.isEmpty {
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.dateFormat = "yyyy-MM-dd'T'HH-mm-ss"
      var target = workspace.stateDirectory.appendingPathComponent(
        "backups/\(chapter.folder)/\(formatter.string(from: time))")
      var suffix = 2
      while files.fileExists(atPath: target.path) {
        target = target.deletingLastPathComponent().appendingPathComponent(
          formatter.string(from: time) + "-\(suffix)")
        suffix += 1
      }
      try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
      try files.copyItem(at: folder, to: target)
      backup = target
    }
    try files.createDirectory(at: folder, withIntermediateDirectories: true)
    let removed = now.keys.filter { $0.hasSuffix(".swift") && chapter.starter[$0] == nil }.sorted()
    for name in removed { try files.removeItem(at: folder.appendingPathComponent(name)) }
    var restored: [String] = []
    for (name, data) in contents.sorted(by: { $0.key < $1.key }) where now[name] != chapter.starter[name] {
      let url = folder.appendingPathComponent(name)
      try files.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try data.write(to: url, options: .atomic)
      restored.append(name)
    }
    return Reset(backup: backup, restored: restored, removed: removed)
  }

  // MARK: - The record, for the course's maintainers

  /// The chapters whose `Chapters/` folder differs from what `curriculum.json` records.
  package func unrecorded() -> [Curriculum.Chapter] {
    workspace.curriculum.chapters.filter { current($0) != $0.starter }
  }

  /// Rewrites `curriculum.json`'s `starter` of every chapter to what its
  /// `Chapters/` folder holds now. Only those lines change.
  package func record() throws {
    let url = workspace.url(Curriculum.fileName)
    var text = try String(contentsOf: url, encoding: .utf8)
    for chapter in workspace.curriculum.chapters {
      text = try Self.setStarter(current(chapter), ofChapter: chapter.number, in: text)
    }
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  /// `text` with the chapter's `"starter"` object replaced, or inserted after its `"files"`.
  static func setStarter(_ files: [String: String], ofChapter number: Int, in text: String) throws -> String {
    guard let start = text.range(of: "\"number\": \(number),") else {
      throw ResetError(description: "curriculum.json has no chapter \(number)")
    }
    let end =
      text.range(of: "\"number\": ", range: start.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
    let lineStart =
      text[..<start.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? start.lowerBound
    let indent = String(text[lineStart..<start.lowerBound].prefix { $0 == " " || $0 == "\t" })
    let entries = files.keys.sorted().map { "\(indent)  \"\($0)\": \"\(files[$0]!)\"" }
    let object = "\"starter\": {\n" + entries.joined(separator: ",\n") + "\n\(indent)}"
    var text = text
    if let existing = text.range(of: "\"starter\": {", range: start.upperBound..<end),
      let close = text.range(of: "}", range: existing.upperBound..<end)
    {
      text.replaceSubrange(existing.lowerBound..<close.upperBound, with: object)
    } else if let files = text.range(of: "\"files\": [", range: start.upperBound..<end),
      let close = text.range(of: "],", range: files.upperBound..<end)
    {
      text.replaceSubrange(close.upperBound..<close.upperBound, with: "\n\(indent)" + object + ",")
    } else {
      throw ResetError(description: "curriculum.json's chapter \(number) has no \"files\" list")
    }
    return text
  }
}
