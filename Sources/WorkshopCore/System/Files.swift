import Foundation

/// The one walk over a folder's files, for every reader of a chapter, the
/// checks, the course or a submission.
///
/// It lists what SwiftPM would build from the folder and nothing else: the
/// files (not folders) under it, by path relative to it, sorted, leaving
/// out every hidden file and everything in a hidden folder (a nested
/// package's `.build`, an editor's `.swp`), which SwiftPM never compiles.
///
///     let sources = Files.under(workspace.url("Chapters/04-DebouncedSearch"), suffix: ".swift")
///     // ["SearchModel.swift", "Support/Clock.swift"]
package enum Files {
  /// The files under `folder` whose names end with `suffix` (every file
  /// when nil); empty when `folder` does not exist.
  package static func under(_ folder: URL, suffix: String? = nil) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
    return enumerator.compactMap { $0 as? String }.filter { path in
      guard suffix.map(path.hasSuffix) ?? true, !isHidden(path) else { return false }
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(
        atPath: folder.appendingPathComponent(path).path, isDirectory: &isFolder) && !isFolder.boolValue
    }.sorted()
  }

  /// Whether a relative path names a hidden file or goes through a hidden folder.
  package static func isHidden(_ path: String) -> Bool {
    path.split(separator: "/").contains { $0.hasPrefix(".") }
  }
}
