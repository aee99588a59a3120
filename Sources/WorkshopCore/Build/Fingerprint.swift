import Foundation

/// What a build was built from, by content: the hash of every input file.
///
/// Dates cannot tell: SwiftPM compares them to the second, so two saves in
/// one second look like one, and `cp -a`, `tar`, `unzip` and `rsync -a` keep
/// a file's old date.
package enum Fingerprint {
  /// The inputs of a variant's build: relative path to content hash.
  package typealias Inputs = [String: String]

  /// What a file was when read: its content hash, and its modification date
  /// in whole seconds, which is all SwiftPM compares.
  struct FileState: Codable, Equatable {
    var hash: String
    var second: Int
  }

  /// The folders whose files go into a variant's build.
  static func folders(for variant: Variant) -> [String] {
    // `Variants` exists only in the copy that builds a learner's checks
    // against each version of a component (see ``VariantWorkspace``).
    [variant.folder, "Tests", "Sources", "Variants"]
  }

  /// Hashes every file of a variant's build, and the manifests.
  static func of(workspace: Workspace, variant: Variant) -> Inputs {
    of(workspace: workspace, folders: folders(for: variant))
  }

  /// The hash and date of every file of a variant's build, and the manifests.
  static func states(workspace: Workspace, variant: Variant) -> [String: FileState] {
    var states: [String: FileState] = [:]
    for (path, hash) in of(workspace: workspace, variant: variant) {
      let modified = FileStatus(workspace.url(path).path)?.modified ?? 0
      states[path] = FileState(hash: hash, second: Int(modified.rounded(.down)))
    }
    return states
  }

  /// Hashes the files that are the course's, not the learner's: the checks,
  /// the kit and the runner, and the manifests. Code under test must not
  /// change them.
  package static func ofCourse(_ workspace: Workspace) -> Inputs {
    of(workspace: workspace, folders: ["Tests", "Sources"])
  }

  /// The course's files (see ``ofCourse(_:)``) added, removed or changed
  /// since `fingerprint` was taken, sorted.
  package static func changes(since fingerprint: Inputs, in workspace: Workspace) -> [String] {
    let now = ofCourse(workspace)
    return Set(fingerprint.keys).union(now.keys).filter { fingerprint[$0] != now[$0] }.sorted()
  }

  private static func of(workspace: Workspace, folders: [String]) -> Inputs {
    var inputs: Inputs = [:]
    for file in Workspace.buildFiles {
      inputs[file] = hash(workspace.url(file))
    }
    for folder in folders {
      // A nested package's own build output (hidden) is not an input.
      for item in Files.under(workspace.url(folder)) {
        let path = folder + "/" + item
        inputs[path] = hash(workspace.url(path))
      }
    }
    return inputs
  }

  /// Stands for the test entry point's module, which is named after the
  /// package (`WorkshopPackageTests`).
  static let testEntryPointModule = "<test entry point>"

  /// The modules with a file whose content changed while its date, to the
  /// second, did not: SwiftPM would take it for unchanged. A file under
  /// `Chapters/04-DebouncedSearch/` is module `DebouncedSearch`, under
  /// `Tests/04-DebouncedSearchTests/` module `DebouncedSearchTests`, under
  /// `Sources/ConcurrencyTestKit/` module `ConcurrencyTestKit`.
  static func modulesSwiftPMWouldMiss(between old: [String: FileState], and new: [String: FileState]) -> Set<
    String
  > {
    var modules = Set<String>()
    for (path, state) in new {
      guard let before = old[path], before.hash != state.hash, before.second == state.second else { continue }
      // The grader's test entry point, and the target that makes SwiftPM find it.
      if path.hasPrefix(Workspace.testEntryPointFolder + "/") {
        modules.insert(path.contains("/Anchor/") ? "TestEntryPointAnchor" : testEntryPointModule)
        continue
      }
      let parts = path.split(separator: "/")
      guard parts.count >= 3 else { continue }
      var folder = String(parts[1])
      // Chapter folders are NN-Name; the module is Name.
      if let dash = folder.firstIndex(of: "-"), Int(folder[..<dash]) != nil {
        folder = String(folder[folder.index(after: dash)...])
      }
      modules.insert(folder)
    }
    return modules
  }

  /// A file's content hash (see ``ContentHash``); empty for an unreadable file.
  static func hash(_ url: URL) -> String { ContentHash.of(url) }

  /// The content hash of `data` (see ``ContentHash``).
  static func hash(_ data: Data) -> String { ContentHash.of(data) }

  /// The product as the file system describes it: a replaced or rewritten
  /// product no longer matches what the build recorded.
  static func identity(of product: URL) -> String {
    guard let status = FileStatus(product.path) else { return "0:0:0.0" }
    return "\(status.inode):\(status.size):\(status.modified)"
  }

  /// What the last complete build of a variant was built from.
  struct Record: Codable, Equatable {
    /// Where a build's scratch folder keeps it.
    static let fileName = "workshop-inputs.json"
    var files: [String: FileState]
    var product: String
    /// Whether every chapter was in the build.
    var isComplete: Bool
    /// The content hash of SwiftPM's build plan (`debug.yaml`) as that
    /// build wrote it: ``ChapterRebuild`` uses only that plan.
    var plan: String?
    /// The modules ``ChapterRebuild`` compiled since: SwiftPM's record of
    /// them is stale, so its next build compiles them again, whole.
    var quickBuilt: [String]?
    /// Whether the build held the runner's own tests (see ``Builder/runnerTests``).
    var runnerTests: Bool?
    /// The chapters the build left out on purpose (see ``Builder/leftOut``):
    /// a build without a chapter is no build of it.
    var leftOut: [Int]?

    var inputs: Inputs { files.mapValues(\.hash) }

    static func load(from url: URL) -> Record? {
      guard let data = try? Data(contentsOf: url) else { return nil }
      return try? JSONDecoder().decode(Record.self, from: data)
    }

    func save(to url: URL) {
      guard let data = try? JSONEncoder().encode(self) else { return }
      try? data.write(to: url, options: .atomic)
    }
  }
}
