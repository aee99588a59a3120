import Foundation
import Synchronization

/// Names file contents: the 64-bit FNV-1a hash, in hex. Not for secrets:
/// for telling whether a file changed, or is the one the course shipped.
package enum ContentHash {
  /// The hash of a file's content; empty for an unreadable file.
  ///
  /// A `check` hashes the course's files several times (what its build
  /// reads, and the course before and after its checks ran): a file whose
  /// status is the one it had when this process last hashed it is not read
  /// again (see ``settled``).
  static func of(_ url: URL) -> String { of(url, now: Date()) }

  /// ``of(_:)`` with the clock reading `now`: a test need not wait two
  /// seconds for a file to count as settled.
  package static func of(_ url: URL, now: Date) -> String {
    let path = url.path
    let before = FileStatus(path, followingLinks: true)
    if let before, let known = settled.withLock({ $0[path] }), known.status == before { return known.hash }
    guard let data = try? Data(contentsOf: url) else { return "" }
    let hash = of(data)
    // Kept only when nothing changed the file while it was read, nor in the
    // two seconds before: a change within the same tick of the file
    // system's coarse clock leaves the change time as it was.
    if let before, FileStatus(path, followingLinks: true) == before,
      now.timeIntervalSince1970 - before.changed > 2
    {
      settled.withLock { $0[path] = (before, hash) }
    }
    return hash
  }

  /// The hashes this process took of files, by path, with the status each
  /// had. The same status is the same content: any change to a file, its
  /// date set back included, sets its change time to the present, and
  /// nothing sets it back.
  private static let settled = Mutex<[String: (status: FileStatus, hash: String)]>([:])

  /// The hash of `data`.
  static func of(_ data: Data) -> String {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    data.withUnsafeBytes { bytes in
      for byte in bytes {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01b3
      }
    }
    return String(value, radix: 16)
  }
}
