import Foundation

/// A copy of the course under `.build` that builds the learner's checks once
/// per version of the component, each as a module of its own
/// (`Package.swift` reads `WORKSHOP_COMPONENT_VARIANTS`): one build, every
/// version. Versions are named by a hash with a salt of this checkout's own,
/// so that a check cannot tell from its module's name which one it runs on.
struct VariantWorkspace {
  var workspace: Workspace
  var chapter: Curriculum.Chapter
  var ids: [String: String]

  /// The test module that holds the learner's checks built against `variant`.
  func testModule(of variant: Mutation) -> String {
    "\(chapter.name)_\(ids[variant.name]!)Tests"
  }

  /// The environment that makes `Package.swift` declare the versions.
  func environment(_ base: [String: String]) -> [String: String] {
    var environment = base
    environment["WORKSHOP_COMPONENT_VARIANTS"] = chapter.component
    environment["WORKSHOP_CHECKS_CHAPTER"] = chapter.name
    return environment
  }

  /// Where the copy for `variant`'s chapters is kept, relative to the root.
  static func folder(for variant: Variant) -> String {
    ".build/workshop-variants-\(variant.rawValue)"
  }

  static func prepare(
    for chapter: Curriculum.Chapter, variants: [Mutation], from source: Workspace, variant: Variant
  ) throws -> VariantWorkspace {
    let root = source.url(folder(for: variant))
    let copy = Workspace(root: root, curriculum: source.curriculum)
    var files: [String: String] = [:]
    for path in ["Package.swift", Curriculum.fileName] {
      files[path] = try String(contentsOf: source.url(path), encoding: .utf8)
    }
    for folder in ["Sources/CheckTranscript", "Sources/ConcurrencyTestKit", "Sources/SanitizerSupport"] {
      for (path, text) in try texts(under: source.url(folder)) { files[folder + "/" + path] = text }
    }
    let component = chapter.component!
    let pristine = try texts(under: source.url("Sources/\(component)"))
    let checks = try texts(under: source.url(source.codeFolder(chapter, variant))).filter {
      $0.key.hasSuffix(".swift")
    }
    let salt = try salt(in: root)
    var ids: [String: String] = [:]
    for mutation in variants {
      let id = "v" + String(Fingerprint.hash(Data((salt + mutation.name).utf8)).prefix(10))
      ids[mutation.name] = id
      for (path, text) in try mutation.apply(to: pristine) { files["Variants/\(id)/\(path)"] = text }
      for (path, text) in checks { files["Variants/\(id)-checks/\(path)"] = text }
    }
    // SwiftPM caches a manifest's evaluation by its text and environment,
    // not by the folders it lists: name the versions in the text, so that a
    // new salt or a new version is a new manifest.
    files["Package.swift", default: ""] +=
      "\n// versions (see VariantWorkspace): \(ids.values.sorted().joined(separator: " "))\n"
    // Folders of versions no longer graded would be targets without sources.
    let variantsFolder = root.appendingPathComponent("Variants")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: variantsFolder.path)) ?? []
    where !name.hasPrefix(".") && !ids.values.contains(name)
      && !ids.values.contains(where: { name == $0 + "-checks" })
    {
      try FileManager.default.removeItem(at: variantsFolder.appendingPathComponent(name))
    }
    try mirror(files, into: root, within: ["Variants", "Sources"])
    return VariantWorkspace(workspace: copy, chapter: chapter, ids: ids)
  }

  /// This checkout's salt for version names, made once. It is kept in the
  /// versions' folder, which the sandbox hides from code under test.
  private static func salt(in root: URL) throws -> String {
    let url = root.appendingPathComponent("Variants/.salt")
    if let salt = try? String(contentsOf: url, encoding: .utf8), !salt.isEmpty { return salt }
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let salt = UUID().uuidString
    try salt.write(to: url, atomically: true, encoding: .utf8)
    return salt
  }

  /// The text of every file under `folder`, by path relative to it.
  private static func texts(under folder: URL) throws -> [String: String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [:] }
    var texts: [String: String] = [:]
    for case let path as String in enumerator {
      var isFolder: ObjCBool = false
      let url = folder.appendingPathComponent(path)
      guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue
      else { continue }
      texts[path] = try String(contentsOf: url, encoding: .utf8)
    }
    return texts
  }

  /// Makes `root` hold exactly `files` under `folders` (and the files given
  /// outside them); a file is written only when its content changes, so that
  /// SwiftPM rebuilds only what did.
  private static func mirror(_ files: [String: String], into root: URL, within folders: [String]) throws {
    let manager = FileManager.default
    for folder in folders {
      let base = root.appendingPathComponent(folder)
      for case let path as String in manager.enumerator(atPath: base.path) ?? NSEnumerator() {
        var isFolder: ObjCBool = false
        let url = base.appendingPathComponent(path)
        if manager.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue,
          files[folder + "/" + path] == nil, !path.hasPrefix(".")
        {
          try manager.removeItem(at: url)
        }
      }
    }
    for (path, text) in files {
      let url = root.appendingPathComponent(path)
      if (try? String(contentsOf: url, encoding: .utf8)) == text { continue }
      try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: url, atomically: true, encoding: .utf8)
    }
  }
}
