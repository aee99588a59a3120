import Foundation

/// The chapter list in `Package.swift`, written from `curriculum.json`
/// (each chapter's build settings, and its documents when it ships more
/// than a README).
///
/// `Package.swift` is plain Swift that reads no file to learn the course:
/// the chapters sit in it as a literal list between two marker lines. A
/// maintainer who changes `curriculum.json`'s chapters runs
/// `swift run workshop-instructor dev package`, which writes the list
/// again, and commits both; `verify` fails while they disagree. Nothing
/// rewrites `Package.swift` while a learner works (SwiftPM caches a
/// manifest by its own text, so a manifest that read `curriculum.json`
/// needed a digest line the runner kept current, rewriting the learner's
/// file at run time).
///
///     let manifest = try PackageManifest(contentsOf: workspace.url(PackageManifest.fileName))
///     if manifest.listedChapters != PackageManifest.chapterList(workspace.curriculum) {
///       // Stale: `dev package` writes `manifest.updated(for: workspace.curriculum)`.
///     }
package struct PackageManifest: Sendable, Equatable {
  /// The manifest's file name, at the top of the repository.
  package static let fileName = "Package.swift"
  /// The line before the list.
  static let begin = "// BEGIN chapters, from curriculum.json by `workshop-instructor dev package`"
  /// The line after it.
  static let end = "// END chapters"

  /// The manifest's text.
  package var text: String

  init(text: String) { self.text = text }

  /// Reads the manifest at `url`.
  package init(contentsOf url: URL) throws {
    text = try String(contentsOf: url, encoding: .utf8)
  }

  /// The list `Package.swift` should hold for `curriculum`: one line a
  /// chapter, in the curriculum's order.
  static func chapterList(_ curriculum: Curriculum) -> [String] {
    ["let courseChapters: [Chapter] = ["]
      + curriculum.chapters.map { chapter in
        var fields = ["number: \(chapter.number)", "name: \"\(chapter.name)\""]
        if let component = chapter.component { fields.append("component: \"\(component)\"") }
        if chapter.xcodeAppDefaults { fields.append("xcodeAppDefaults: true") }
        // Its documents as shipped (the starter's record): the manifest
        // leaves them out of the target by name.
        let documents = chapter.starter.keys.filter { $0.hasSuffix(".md") }.sorted()
        if !documents.isEmpty, documents != ["README.md"] {
          fields.append("documents: [" + documents.map { "\"\($0)\"" }.joined(separator: ", ") + "]")
        }
        return "  Chapter(" + fields.joined(separator: ", ") + "),"
      } + ["]"]
  }

  /// The lines between the markers; nil when the markers are missing.
  package var listedChapters: [String]? {
    let lines = text.components(separatedBy: "\n")
    guard let first = lines.firstIndex(of: Self.begin),
      let last = lines[first...].firstIndex(of: Self.end)
    else { return nil }
    return Array(lines[(first + 1)..<last])
  }

  /// Whether the list matches `curriculum`.
  package func isCurrent(for curriculum: Curriculum) -> Bool {
    listedChapters == Self.chapterList(curriculum)
  }

  /// The manifest with the list written for `curriculum`, everything else
  /// as it was.
  package func updated(for curriculum: Curriculum) throws -> PackageManifest {
    var lines = text.components(separatedBy: "\n")
    guard let first = lines.firstIndex(of: Self.begin),
      let last = lines[first...].firstIndex(of: Self.end)
    else {
      throw CurriculumError(
        description: "\(Self.fileName) has no line \"\(Self.begin)\" followed by \"\(Self.end)\"")
    }
    lines.replaceSubrange((first + 1)..<last, with: Self.chapterList(curriculum))
    return PackageManifest(text: lines.joined(separator: "\n"))
  }
}
