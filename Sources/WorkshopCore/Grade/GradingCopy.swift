import Foundation

/// A copy of the course that grades chapter code other than the checkout's
/// own: the manifests, the kit and the checks mirrored from the pristine
/// checkout, and in `Chapters/` whatever is placed there (a fix `verify`
/// grades, a learner's submission `grade` grades).
///
/// The copy lives under `.build` and is kept between runs, so that each use
/// rebuilds only the chapters whose content changed.
package struct GradingCopy: Sendable {
  /// The pristine checkout.
  var course: Workspace
  /// The copy, a workspace of its own.
  package var copy: Workspace

  /// Makes (or brings up to date) the copy of `course` at `root`.
  package init(of course: Workspace, at root: URL) throws {
    self.course = course
    self.copy = Workspace(root: root, curriculum: course.curriculum)
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try syncCourse()
  }

  /// The course's own folders a grading build needs: the kit, the
  /// components learners write checks for, and every chapter's checks.
  var courseFolders: [String] {
    let components = course.curriculum.chapters.compactMap(\.component).map { "Sources/" + $0 }
    return ["Sources/CheckTranscript", "Sources/ConcurrencyTestKit", "Sources/SanitizerSupport"] + components
      + course.curriculum.chapters.map(course.checksFolder) + [Workspace.testEntryPointFolder]
  }

  /// Mirrors the course's files into the copy: writes each file whose content
  /// differs, and removes from the mirrored folders any file the course does
  /// not have (code under test, unsandboxed, could have added one).
  package func syncCourse() throws {
    for file in Workspace.buildFiles {
      try Self.write(try Data(contentsOf: course.url(file)), to: copy.url(file))
    }
    for folder in courseFolders {
      let wanted = Set(Files.under(course.url(folder)))
      for path in wanted {
        try Self.write(
          try Data(contentsOf: course.url(folder + "/" + path)), to: copy.url(folder + "/" + path))
      }
      for path in Files.under(copy.url(folder)) where !wanted.contains(path) {
        try FileManager.default.removeItem(at: copy.url(folder + "/" + path))
      }
    }
    // SwiftPM takes a test entry point file (`LinuxMain.swift`) from the
    // folders above the test targets: the copy's must be the course's, or a
    // file an older course left there would make two.
    for folder in ["", "Tests"] {
      let wanted = Self.swiftFiles(directlyIn: course.url(folder))
      for name in Self.swiftFiles(directlyIn: copy.url(folder)) where !wanted.contains(name) {
        try FileManager.default.removeItem(at: copy.url(folder).appendingPathComponent(name))
      }
      for name in wanted {
        let path = folder.isEmpty ? name : folder + "/" + name
        try Self.write(try Data(contentsOf: course.url(path)), to: copy.url(path))
      }
    }
    // The chapters' READMEs: the manifest excludes them from the build.
    for chapter in course.curriculum.chapters {
      let readme = course.codeFolder(chapter, .chapters) + "/README.md"
      if let data = try? Data(contentsOf: course.url(readme)) {
        try Self.write(data, to: copy.url(readme))
      }
    }
  }

  /// Makes `sources` (paths relative to the chapter's folder, to their text)
  /// the copy's code for `chapter`: writes only what changed, and removes
  /// every other Swift file of the chapter's folder.
  package func place(_ chapter: Curriculum.Chapter, sources: [String: String]) throws {
    let target = copy.url(copy.codeFolder(chapter, .chapters))
    for path in Files.under(target) where path.hasSuffix(".swift") && sources[path] == nil {
      try FileManager.default.removeItem(at: target.appendingPathComponent(path))
    }
    for (path, text) in sources {
      try Self.write(Data(text.utf8), to: target.appendingPathComponent(path))
    }
  }

  // MARK: - The starters' build folders

  /// Where the copy's build folders, as a build of the starters left them,
  /// are kept: beside the copy, never written by a build of learner code.
  var startersBuilds: URL {
    copy.root.deletingLastPathComponent().appendingPathComponent(copy.root.lastPathComponent + "-starters")
  }

  private var startersRecord: URL { startersBuilds.appendingPathComponent("course.json") }

  /// Whether the kept build folders were made from the course as it is now.
  package func hasBuilds(of course: Fingerprint.Inputs) -> Bool {
    guard let data = try? Data(contentsOf: startersRecord),
      let recorded = try? JSONDecoder().decode(Fingerprint.Inputs.self, from: data)
    else { return false }
    return recorded == course
  }

  /// Keeps the copy's build folders (made from the starters) for
  /// ``restoreBuilds()``.
  package func saveBuilds(of course: Fingerprint.Inputs) throws {
    try? FileManager.default.removeItem(at: startersBuilds)
    try FileManager.default.createDirectory(at: startersBuilds, withIntermediateDirectories: true)
    try Self.copyTree(copy.url(".build"), to: startersBuilds.appendingPathComponent("build"))
    try JSONEncoder().encode(course).write(to: startersRecord)
  }

  /// Puts back the build folders ``saveBuilds(of:)`` kept, so that nothing
  /// an earlier submission's build wrote (objects, modules, SwiftPM's
  /// caches) is built on; with none kept, the copy's are removed.
  package func restoreBuilds() throws {
    let builds = copy.url(".build")
    try? FileManager.default.removeItem(at: builds)
    let kept = startersBuilds.appendingPathComponent("build")
    guard FileManager.default.fileExists(atPath: kept.path) else { return }
    try Self.copyTree(kept, to: builds)
  }

  /// Copies a folder with its dates, modes and owners (SwiftPM decides what
  /// to build again from dates).
  static func copyTree(_ source: URL, to target: URL) throws {
    let outcome = try Subprocess.run("/bin/cp", ["-Rp", source.path, target.path], timeout: 600)
    guard outcome.succeeded else {
      throw GradingError(description: "could not copy \(source.path): \(outcome.standardError)")
    }
  }

  /// The course's solution of `chapter`, as `place` takes it.
  package func solution(of chapter: Curriculum.Chapter) throws -> [String: String] {
    try Self.swiftSources(in: course.url(course.codeFolder(chapter, .solutions)))
  }

  /// The course's starter of `chapter` (its `Chapters/` folder), as `place` takes it.
  package func starter(of chapter: Curriculum.Chapter) throws -> [String: String] {
    try Self.swiftSources(in: course.url(course.codeFolder(chapter, .chapters)))
  }

  /// The Swift files under `folder`, by path relative to it.
  package static func swiftSources(in folder: URL) throws -> [String: String] {
    var sources: [String: String] = [:]
    for path in Files.under(folder) where path.hasSuffix(".swift") {
      sources[path] = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }
    return sources
  }

  /// The names of the Swift files in `folder` itself, not in its folders.
  static func swiftFiles(directlyIn folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { name in
      var isFolder: ObjCBool = false
      return name.hasSuffix(".swift") && !name.hasPrefix(".")
        && FileManager.default.fileExists(
          atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
        && !isFolder.boolValue
    }.sorted()
  }

  /// Writes `data` to `url` unless it holds that already (its date then
  /// stays, and SwiftPM does not rebuild).
  static func write(_ data: Data, to url: URL) throws {
    if (try? Data(contentsOf: url)) == data { return }
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url, options: .atomic)
  }
}
