import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Gives a folder and everything in it to a user, as `chown -R` does, while
/// other processes write in it.
///
/// A sandboxed build gets its build folder this way before every tool it
/// runs, and the versions of a chapter 13 suite are linked in parallel in
/// one build folder: a linker or the runner may create a temporary file and
/// rename it away while the folder is walked. `chown -R` reports such a
/// file as an error; here a file that is gone needs no owner and is passed.
///
/// The walk never follows a symbolic link (it changes the link itself), and
/// opens each folder relative to its parent's descriptor, so a folder
/// swapped for a link while it walks leads nowhere outside `folder`.
///
/// ```swift
/// try Ownership.give(scratch, to: Sandbox.nobody)
/// ```
enum Ownership {
  /// Who a file is given to.
  struct Owner {
    var user: uid_t
    var group: gid_t

    /// Whether a file with this status is already this owner's.
    func owns(_ status: stat) -> Bool { status.st_uid == user && status.st_gid == group }
  }

  /// Makes `user` (with the group of the same number) own `folder` and
  /// everything under it.
  static func give(_ folder: URL, to user: Int) throws {
    try give(folder, to: Owner(user: uid_t(user), group: gid_t(user)))
  }

  /// Makes `owner` own `folder` and everything under it; `reached` is
  /// called with each file's path as the walk reaches it, before its owner
  /// changes (where a test removes files, as a linker does).
  static func give(_ folder: URL, to owner: Owner, reached: (String) -> Void = { _ in }) throws {
    let top = open(folder.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard top >= 0 else { throw failure("open", folder.path) }
    try give(folder: top, path: folder.path, to: owner, reached: reached)
  }

  /// Gives the open folder `descriptor` (at `path`, for messages) and its
  /// contents to `owner`, and closes it.
  private static func give(
    folder descriptor: Int32, path: String, to owner: Owner, reached: (String) -> Void
  ) throws {
    guard let directory = fdopendir(descriptor) else {
      let error = failure("read", path)
      close(descriptor)
      throw error
    }
    defer { closedir(directory) }
    var status = stat()
    let owned = fstat(descriptor, &status) == 0 && owner.owns(status)
    guard owned || fchown(descriptor, owner.user, owner.group) == 0 else {
      throw failure("change the owner of", path)
    }
    while let entry = readdir(directory) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
          String(cString: $0)
        }
      }
      if name == "." || name == ".." { continue }
      let child = path + "/" + name
      reached(child)
      // A folder, or what may be one: opened without following a link.
      let type = Int32(entry.pointee.d_type)
      if type == Int32(DT_DIR) || type == Int32(DT_UNKNOWN) {
        let opened = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if opened >= 0 {
          try give(folder: opened, path: child, to: owner, reached: reached)
          continue
        }
        let reason = errno
        if reason == ENOENT { continue }
        guard reason == ENOTDIR || reason == ELOOP else { throw failure("open", child) }
      }
      // A file its owner already has is left alone: a change of owner,
      // even to the same one, is a write to the file's inode, and most of
      // the folder is already the user's from the build before.
      var status = stat()
      if fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0, owner.owns(status) { continue }
      guard fchownat(descriptor, name, owner.user, owner.group, AT_SYMLINK_NOFOLLOW) == 0 || errno == ENOENT
      else { throw failure("change the owner of", child) }
    }
  }

  private static func failure(_ verb: String, _ path: String) -> GradingError {
    GradingError(description: "could not \(verb) \(path): \(String(cString: strerror(errno)))")
  }
}
