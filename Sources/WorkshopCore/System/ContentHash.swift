import Foundation

/// Names file contents: the 64-bit FNV-1a hash, in hex. Not for secrets:
/// for telling whether a file changed, or is the one the course shipped.
public enum ContentHash {
  /// The hash of a file's content; empty for an unreadable file.
  public static func of(_ url: URL) -> String {
    guard let data = try? Data(contentsOf: url) else { return "" }
    return of(data)
  }

  /// The hash of `data`.
  public static func of(_ data: Data) -> String {
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
