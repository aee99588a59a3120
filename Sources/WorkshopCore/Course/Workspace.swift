import Foundation

/// Which implementation of the chapters to build and grade.
package enum Variant: String, Sendable {
  /// `Chapters/`: the learner's code.
  case chapters
  /// `Solutions/`: the reference solutions.
  case solutions

  /// The top-level folder holding this variant's chapters.
  package var folder: String {
    switch self {
    case .chapters: "Chapters"
    case .solutions: "Solutions"
    }
  }
}

/// The repository the workshop runs in.
package struct Workspace: Sendable {
  /// The folder holding `Package.swift` and `curriculum.json`.
  package var root: URL
  package var curriculum: Curriculum

  init(root: URL, curriculum: Curriculum) {
    self.root = root
    self.curriculum = curriculum
  }

  /// The folder of this source file in the checkout the runner was built from.
  ///
  /// Xcode runs the `workshop` scheme in its own build folder, not in the
  /// package; the runner then grades the checkout it was built from.
  static let builtFrom = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

  /// The grader's test entry point on Linux and the empty test target that
  /// makes SwiftPM find it (see `Tests/EntryPoint/XCTMain.swift`): with them
  /// SwiftPM does not look for XCTest tests in an index, so the grader's
  /// builds leave indexing out (see ``Builder``), about a third of a cold
  /// build. Learners' builds never declare the target, so never see it.
  static let testEntryPointFolder = "Tests/EntryPoint"

  /// The course's files outside its folders that every build of it reads:
  /// the manifest and the curriculum it reads.
  static let buildFiles = ["Package.swift", Curriculum.fileName]

  /// Whether SwiftPM can build this workspace's tests without an index: on
  /// Linux when it has the test entry point (``testEntryPointFolder``);
  /// elsewhere always, tests being found at run time.
  var buildsTestsWithoutIndex: Bool {
    #if os(Linux)
      hasTestEntryPoint
    #else
      true
    #endif
  }

  /// Whether the test entry point and its anchor target, with the seal the
  /// entry point imports from it, are here (SwiftPM drops a target without
  /// a Swift file, and then finds no entry point).
  var hasTestEntryPoint: Bool {
    let folder = url(Self.testEntryPointFolder)
    return FileManager.default.fileExists(atPath: folder.appendingPathComponent("XCTMain.swift").path)
      && FileManager.default.fileExists(atPath: folder.appendingPathComponent("Anchor/StreamSeal.swift").path)
  }

  /// Finds the workspace at `start` or the nearest folder above it.
  package static func locate(from start: URL) throws -> Workspace {
    var folder = start.standardizedFileURL
    while true {
      let manifest = folder.appendingPathComponent(Curriculum.fileName)
      if FileManager.default.fileExists(atPath: manifest.path),
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
      {
        return Workspace(root: folder, curriculum: try Curriculum.load(from: manifest))
      }
      let parent = folder.deletingLastPathComponent()
      if parent.path == folder.path {
        throw CurriculumError(
          description:
            "no workshop here: \(Curriculum.fileName) and Package.swift were not found in \(start.path) or above it. Run the command from the workshop's folder."
        )
      }
      folder = parent
    }
  }

  /// The folder SwiftPM builds a variant in.
  ///
  /// The grader builds with line tables only (`-gline-tables-only`), not
  /// full debug info, which halves the time from an edit to a result; it
  /// keeps its own folders so that it never fights `swift test` or an IDE
  /// over the default `.build`.
  func scratchPath(for variant: Variant) -> URL {
    switch variant {
    case .chapters: root.appendingPathComponent(".build/workshop")
    case .solutions: root.appendingPathComponent(".build/workshop-solutions")
    }
  }

  /// `text` with the paths in the workspace relative to its folder (see
  /// ``PathRewriter``).
  package func relativize(_ text: String) -> String {
    PathRewriter(root: root).rewrite(text)
  }

  /// Where the workshop keeps its own small state (hints shown, timings).
  package var stateDirectory: URL {
    root.appendingPathComponent(".workshop")
  }

  /// The files to edit for a chapter, relative to the root, for messages:
  /// `Chapters/04-DebouncedSearch/SearchModel.swift`, or the folder with the
  /// file names when there are several.
  package func exerciseFiles(_ chapter: Curriculum.Chapter, in variant: Variant = .chapters) -> String {
    let folder = codeFolder(chapter, variant) + "/"
    guard chapter.files.count > 1 else { return folder + (chapter.files.first ?? "") }
    return folder + " (" + chapter.files.joined(separator: ", ") + ")"
  }

  // MARK: - A chapter's paths, relative to the root: derived here only

  /// `Chapters/04-DebouncedSearch` (or under `Solutions/`).
  package func codeFolder(_ chapter: Curriculum.Chapter, _ variant: Variant) -> String {
    variant.folder + "/" + chapter.folder
  }

  /// `Tests/04-DebouncedSearchTests`.
  package func checksFolder(_ chapter: Curriculum.Chapter) -> String {
    "Tests/" + chapter.testFolder
  }

  /// `Slides/04-DebouncedSearch.md`.
  package func slidesFile(_ chapter: Curriculum.Chapter) -> String {
    "Slides/" + chapter.slides
  }

  /// A path relative to the root, as a URL.
  package func url(_ relativePath: String) -> URL {
    root.appendingPathComponent(relativePath)
  }
}
