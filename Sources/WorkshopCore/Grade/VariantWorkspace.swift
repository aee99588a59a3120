import Foundation

/// A copy of the course under `.build` where the learner's checks are graded
/// against every version of the component, compiling those checks once.
///
/// `Package.swift` reads `WORKSHOP_COMPONENT_VARIANTS` there and declares the
/// component with the learner's checks (`Variants/checks/`), and each version
/// (`Variants/<id>/`) as a module of its own compiled under the component's
/// module name. A version's objects define the very symbols the checks were
/// compiled to call, so the test product is linked again once per version
/// with its objects in place of the component's (``link(_:sandbox:environment:)``):
/// one compile of the checks and a link of a fraction of a second per version,
/// where a module of checks per version compiled the checks once per version.
///
/// That is sound only when a version leaves the component's interface as it
/// is (the layout of its types, the signatures of its functions): each
/// version's compiled interface must be the component's, byte for byte, or
/// that version is not graded and says why. Versions are named by a hash
/// with a salt of this checkout's own, so that nothing a check can see tells
/// it which version it runs on.
struct VariantWorkspace {
  var workspace: Workspace
  var chapter: Curriculum.Chapter
  var ids: [String: String]

  /// The test module that holds the learner's checks, the same against
  /// every version.
  var testModule: String { chapter.testModule }

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
    let component = chapter.component!
    var files: [String: String] = [:]
    for path in Workspace.buildFiles {
      files[path] = try String(contentsOf: source.url(path), encoding: .utf8)
    }
    for folder in ["Sources/CheckTranscript", "Sources/ConcurrencyTestKit", "Sources/SanitizerSupport"]
      + ["Sources/\(component)", Workspace.testEntryPointFolder]
    {
      for (path, text) in try texts(under: source.url(folder)) { files[folder + "/" + path] = text }
    }
    let pristine = try texts(under: source.url("Sources/\(component)"))
    for (path, text) in try texts(under: source.url(source.codeFolder(chapter, variant)))
    where path.hasSuffix(".swift") {
      files["Variants/checks/\(path)"] = text
    }
    let salt = try salt(in: root)
    var ids: [String: String] = [:]
    for mutation in variants {
      let id = "v" + String(Fingerprint.hash(Data((salt + mutation.name).utf8)).prefix(10))
      ids[mutation.name] = id
      for (path, text) in try mutation.apply(to: pristine) { files["Variants/\(id)/\(path)"] = text }
    }
    // SwiftPM caches a manifest's evaluation by its text and environment,
    // not by the folders it lists: name the versions in the text, so that a
    // new salt or a new version is a new manifest.
    files["Package.swift", default: ""] +=
      "\n// versions (see VariantWorkspace): \(ids.values.sorted().joined(separator: " "))\n"
    // Folders of versions no longer graded would be targets without sources.
    let variantsFolder = root.appendingPathComponent("Variants")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: variantsFolder.path)) ?? []
    where !name.hasPrefix(".") && name != "checks" && !ids.values.contains(name) {
      try FileManager.default.removeItem(at: variantsFolder.appendingPathComponent(name))
    }
    try mirror(files, into: root, within: ["Variants", "Sources", "Tests"])
    return VariantWorkspace(workspace: copy, chapter: chapter, ids: ids)
  }

  // MARK: - One test product per version

  /// Links the test product of `build` again once per version, with the
  /// version's objects in place of the component's, two links at a time.
  /// Each link runs in `sandbox` as the build did (linking learner code
  /// runs it), and is skipped when its inputs are those of the product it
  /// left last time.
  ///
  /// - Returns: per version's mutation name, its test product, or why it has none.
  func link(_ build: Build, sandbox: Sandbox?, environment: [String: String]) -> [String: Result<
    URL, VariantError
  >] {
    let scratch = workspace.scratchPath(for: .chapters)
    // SwiftPM's lock on the folder, as ``ChapterRebuild`` takes it: another
    // grading of the versions (a `watch` beside a table) neither rewrites
    // the objects nor links the same products meanwhile.
    let linked = SwiftPMLock.withLock(onScratch: scratch) {
      link(build, in: scratch, sandbox: sandbox, environment: environment)
    }
    return linked
      ?? ids.mapValues { _ in
        .failure(VariantError("another grading of the versions is running in this copy"))
      }
  }

  /// ``link(_:sandbox:environment:)``, holding SwiftPM's lock on `scratch`.
  private func link(_ build: Build, in scratch: URL, sandbox: Sandbox?, environment: [String: String])
    -> [String: Result<URL, VariantError>]
  {
    let component = chapter.component!
    let plan = ChapterRebuild.Plan(
      (try? String(contentsOf: scratch.appendingPathComponent("debug.yaml"), encoding: .utf8)) ?? "")
    func module(_ name: String) -> ChapterRebuild.PlannedCommand? {
      plan.command(key: "C.\(name)-", suffix: "-debug.module")
    }
    guard let link = plan.command(key: "C.", suffix: "-debug.test"),
      let pristine = module(component),
      let listArgument = link.arguments.firstIndex(where: { $0.hasPrefix("@") }),
      let output = link.arguments.firstIndex(of: "-o").map({ $0 + 1 }), output < link.arguments.count,
      let list = try? String(
        contentsOfFile: String(link.arguments[listArgument].dropFirst()), encoding: .utf8)
    else {
      let reason = VariantError("the build plan has no link of the checks to redo")
      return ids.mapValues { _ in .failure(reason) }
    }
    let interface = pristine.outputs.first { $0.hasSuffix(".swiftmodule") }.flatMap {
      FileManager.default.contents(atPath: $0)
    }
    let product = URL(fileURLWithPath: link.arguments[output])
    let versions = ids.values.reduce(into: [String: ChapterRebuild.PlannedCommand]()) {
      $0[$1] = module("\(component)_\($1)")
    }
    let rebuild = ChapterRebuild(
      workspace: workspace, variant: .chapters, environment: environment, sandbox: sandbox)
    let results = concurrentMap(ids.sorted { $0.key < $1.key }, width: 2) {
      (name, id) -> (String, Result<URL, VariantError>) in
      guard let version = versions[id] else {
        return (name, .failure(VariantError("the build plan does not compile it")))
      }
      guard let interface,
        version.outputs.first(where: { $0.hasSuffix(".swiftmodule") }).flatMap({
          FileManager.default.contents(atPath: $0)
        }) == interface
      else {
        return (
          name,
          .failure(
            VariantError(
              "it changes \(component)'s interface (its compiled module differs from the component's): "
                + "a version may change what the component does, not its declarations"))
        )
      }
      // The component's objects give way to the version's; the component's
      // wrapped interface (`.swiftmodule.o`, for the debugger) stays: it is
      // the version's too.
      let objects = version.outputs.filter { $0.hasSuffix(".o") }
      var lines: [String] = []
      var replaced = false
      for line in list.split(separator: "\n").map(String.init) {
        let isComponent = pristine.outputs.contains(line) && !line.hasSuffix(".swiftmodule.o")
        if isComponent {
          if !replaced { lines += objects }
          replaced = true
        } else {
          lines.append(line)
        }
      }
      guard replaced else {
        return (name, .failure(VariantError("the checks' link has no \(component) in it")))
      }
      do {
        let linked = try Self.product(for: id, like: product, in: scratch)
        let listFile = linked.folder.appendingPathComponent("Objects.LinkFileList")
        let listText = lines.joined(separator: "\n") + "\n"
        var arguments = link.arguments
        arguments[listArgument] = "@" + listFile.path
        arguments[output] = linked.product.path
        // What the product was linked from: the command, and each object as
        // the file system describes it.
        let inputs = ContentHash.of(
          Data(
            (arguments + lines.map { $0 + " " + Fingerprint.identity(of: URL(fileURLWithPath: $0)) })
              .joined(separator: "\n").utf8))
        let stamp = linked.folder.appendingPathComponent("inputs")
        if (try? String(contentsOf: stamp, encoding: .utf8)) == inputs,
          FileManager.default.fileExists(atPath: linked.product.path)
        {
          return (name, .success(linked.product))
        }
        try? FileManager.default.removeItem(at: stamp)
        try listText.write(to: listFile, atomically: true, encoding: .utf8)
        guard try rebuild.link(arguments) else {
          return (name, .failure(VariantError("the checks did not link against it")))
        }
        try inputs.write(to: stamp, atomically: true, encoding: .utf8)
        return (name, .success(linked.product))
      } catch {
        return (name, .failure(VariantError("\(error)")))
      }
    }
    return Dictionary(uniqueKeysWithValues: results)
  }

  /// Where the test product for version `id` is linked, laid out as
  /// SwiftPM's `product` is (on macOS, a bundle whose `Info.plist` is
  /// copied), under `debug/variants/<id>/` in `scratch`.
  private static func product(for id: String, like product: URL, in scratch: URL) throws -> (
    folder: URL, product: URL
  ) {
    let components = product.pathComponents
    guard let bundle = components.lastIndex(where: { $0.hasSuffix(".xctest") }) else {
      throw VariantError("the test product \(product.path) is not an .xctest")
    }
    let original = URL(fileURLWithPath: components[...bundle].joined(separator: "/"))
    let folder = scratch.appendingPathComponent("debug/variants/\(id)")
    let copy = folder.appendingPathComponent(original.lastPathComponent)
    let linked = components[(bundle + 1)...].reduce(copy) { $0.appendingPathComponent($1) }
    let files = FileManager.default
    try files.createDirectory(at: linked.deletingLastPathComponent(), withIntermediateDirectories: true)
    let plist = original.appendingPathComponent("Contents/Info.plist")
    if files.fileExists(atPath: plist.path) {
      let target = copy.appendingPathComponent("Contents/Info.plist")
      if files.contents(atPath: target.path) != files.contents(atPath: plist.path) {
        try? files.removeItem(at: target)
        try files.copyItem(at: plist, to: target)
      }
    }
    return (folder, linked)
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
    var texts: [String: String] = [:]
    for path in Files.under(folder) {
      texts[path] = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
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
      for path in Files.under(base) where files[folder + "/" + path] == nil {
        try manager.removeItem(at: base.appendingPathComponent(path))
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
