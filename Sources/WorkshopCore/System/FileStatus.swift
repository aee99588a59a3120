import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What `lstat` says of a file: its device, inode, size, modification and
/// change times, and mode.
///
/// `FileManager.attributesOfItem(atPath:)` also looks up the names of the
/// file's user and group, which on Linux reads `/etc/passwd` and `/etc/group`
/// on every call: a `check` asked it of some 260 files and spent a third of
/// a second there. The runner asks this instead.
///
/// ```swift
/// let modified = FileStatus(path)?.modified   // seconds since 1970
/// ```
package struct FileStatus: Equatable, Sendable {
  var device: UInt64
  var inode: UInt64
  package var size: Int64
  /// Seconds since 1970, with the fraction.
  var modified: Double
  /// When the file's content or status last changed, as `modified`. No
  /// call sets it back: writing, renaming over and `utimensat` all set it
  /// to the clock's now.
  var changed: Double
  /// The permission bits (`0o755`).
  var permissions: Int
  /// Whether it is a regular file (not a folder, a link, a FIFO, a device).
  var isRegularFile: Bool

  /// The status of `path` itself (a link's, not its target's, unless
  /// `followingLinks`); nil when there is nothing there.
  package init?(_ path: String, followingLinks: Bool = false) {
    var status = stat()
    guard (followingLinks ? stat(path, &status) : lstat(path, &status)) == 0 else { return nil }
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
    size = Int64(status.st_size)
    #if canImport(Darwin)
      modified = Double(status.st_mtimespec.tv_sec) + Double(status.st_mtimespec.tv_nsec) / 1e9
      changed = Double(status.st_ctimespec.tv_sec) + Double(status.st_ctimespec.tv_nsec) / 1e9
    #else
      modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
      changed = Double(status.st_ctim.tv_sec) + Double(status.st_ctim.tv_nsec) / 1e9
    #endif
    permissions = Int(status.st_mode) & 0o7777
    isRegularFile = (status.st_mode & S_IFMT) == S_IFREG
  }
}
