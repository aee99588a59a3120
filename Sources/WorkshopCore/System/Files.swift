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

  /// The one path relativiser: `path`, given as its folders and name from
  /// a root, as typed from `directory`, also given from that root, climbing
  /// with `..` to the folder they share.
  ///
  ///     Files.relative(["Chapters", "05-Tasks", "A.swift"], from: ["Chapters", "04-Search"])
  ///     // "../05-Tasks/A.swift"
  package static func relative(_ path: [String], from directory: [String]) -> String {
    var common = 0
    while common < min(path.count - 1, directory.count), path[common] == directory[common] { common += 1 }
    return (Array(repeating: "..", count: directory.count - common) + path[common...]).joined(separator: "/")
  }

  /// `url`'s folders and name from `root`; nil when `url` is not inside it.
  package static func components(of url: URL, under root: URL) -> [String]? {
    let full = url.standardizedFileURL.resolvingSymlinksInPath().path
    let base = root.standardizedFileURL.resolvingSymlinksInPath().path
    guard full.hasPrefix(base + "/") else { return full == base ? [] : nil }
    return full.dropFirst(base.count + 1).split(separator: "/").map(String.init)
  }

  /// `path` with every link in it followed, as the file system sees it; nil
  /// when it does not exist.
  package static func realPath(_ path: String) -> String? {
    guard let real = realpath(path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }

  /// The bytes of the regular file at `url`, opened without following a
  /// link, when it holds at most `limit` of them; nil for anything else.
  package static func readRegularFile(_ url: URL, atMost limit: Int) -> [UInt8]? {
    let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) <= limit
    else { return nil }
    // One byte more than it says it holds: a file that grew is refused.
    let capacity = Int(status.st_size) + 1
    var bytes = [UInt8](repeating: 0, count: capacity)
    var count = 0
    while count < capacity {
      let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, capacity - count) }
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else { return nil }
      if got == 0 { break }
      count += got
    }
    return count < capacity ? Array(bytes[..<count]) : nil
  }

  /// Whether a relative path names a hidden file or goes through a hidden folder.
  package static func isHidden(_ path: String) -> Bool {
    path.split(separator: "/").contains { $0.hasPrefix(".") }
  }
}
