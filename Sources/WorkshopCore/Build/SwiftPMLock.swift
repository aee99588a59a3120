import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lock SwiftPM holds on a scratch folder while it works in it, so that
/// the quick rebuild (``ChapterRebuild``) never overlaps a SwiftPM build.
///
/// SwiftPM does not lock `<scratch>/.lock` (it only writes its process ID
/// there): it takes `flock` on a file in its temporary folder named after the
/// scratch path with the separators turned into `_`, as TSCBasic's
/// `FileLock.prepareLock(fileToLock:)` names it, for example
/// `$TMPDIR/_work_course_.build_workshop.lock`. The builder runs SwiftPM with
/// `TMPDIR` set to the scratch folder's own `tmp` (see ``Builder``), so that
/// is where the file is.
enum SwiftPMLock {
  /// The temporary folder SwiftPM builds into `scratch` with.
  static func temporaryFolder(of scratch: URL) -> URL {
    scratch.appendingPathComponent("tmp")
  }

  /// The file SwiftPM locks for `scratch` when its temporary folder is `temporary`.
  static func file(forScratch scratch: URL, temporary: URL) -> URL {
    // The parent's links resolved (macOS's /tmp is /private/tmp), then the
    // path's components, the root's "/" first, joined with "_".
    let parent = ChapterRebuild.realPath(scratch.deletingLastPathComponent().path)
    let components = ["/"] + parent.split(separator: "/").map(String.init) + [scratch.lastPathComponent]
    var name = components.joined(separator: "_").replacingOccurrences(of: ":", with: "_") + ".lock"
    if name.hasPrefix("/") { name.removeFirst() }
    // At most NAME_MAX bytes, keeping the end, as TSCBasic does.
    var bytes = Array(name.utf8.suffix(255))
    while String(validating: bytes, as: UTF8.self) == nil { bytes.removeFirst() }
    return temporary.appendingPathComponent(String(decoding: bytes, as: UTF8.self))
  }

  /// Whether `name`, a file in a build's temporary folder, is one of
  /// SwiftPM's lock files, which must outlive the build that made them: a
  /// process waiting on a deleted lock file holds a lock nobody else takes.
  static func isLockFile(_ name: String) -> Bool { name.hasSuffix(".lock") }

  /// Runs `body` holding SwiftPM's lock on `scratch`; nil, without running
  /// it, when a SwiftPM build holds it now.
  static func withLock<T>(onScratch scratch: URL, _ body: () throws -> T) rethrows -> T? {
    let temporary = temporaryFolder(of: scratch)
    try? FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    let descriptor = open(
      file(forScratch: scratch, temporary: temporary).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
    defer { flock(descriptor, LOCK_UN) }
    return try body()
  }
}
