/// Seals each line of a test process's event stream with a key that only the
/// grader and the test entry point know, so that a line code under test
/// writes into the stream is told apart from one Swift Testing produced.
///
/// The grader makes a fresh key for every test process and hands it to the
/// process on its standard input; the grader's test entry point
/// (`Tests/EntryPoint/XCTMain.swift`) reads it before any code under test
/// can run, keeps it only in a closure, and writes every record Swift
/// Testing hands it as `<seal> <record>`, where the seal is HMAC-SHA-256
/// (RFC 2104) of the line's number and the record. Code under test that
/// finds the stream's descriptor can write to it, but no line it writes
/// carries a valid seal, and a line it takes out leaves a gap in the
/// numbers: either way the grader counts nothing of the run.
///
/// ```swift
/// let seal = StreamSeal(key: key)
/// let line = seal.sealed(record, number: 0)   // "3f9a…e1 {\"kind\":…}"
/// seal.opened(line, number: 0)                // the record's bytes
/// seal.opened(line, number: 1)                // nil: out of place
/// ```
public struct StreamSeal: Sendable {
  /// How many bytes a key has.
  public static let keySize = 32
  /// How many characters a seal has, in hex.
  public static let sealLength = 64

  private let inner: [UInt8]
  private let outer: [UInt8]

  /// A seal with `key`, of ``keySize`` bytes.
  public init(key: [UInt8]) {
    var block = key.count > 64 ? SHA256.hash(key) : key
    block += [UInt8](repeating: 0, count: 64 - block.count)
    inner = block.map { $0 ^ 0x36 }
    outer = block.map { $0 ^ 0x5c }
  }

  /// A new random key.
  public static func makeKey() -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<keySize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
  }

  /// The HMAC-SHA-256 of `message` under this seal's key.
  public func authenticationCode(_ message: some Collection<UInt8>) -> [UInt8] {
    SHA256.hash(outer + SHA256.hash(inner + message))
  }

  /// The seal of line `number` (from 0) holding `record`, in hex.
  public func seal(of record: some Collection<UInt8>, number: UInt64) -> String {
    let prefix = (0..<8).map { UInt8(truncatingIfNeeded: number >> (8 * $0)) }
    return authenticationCode(prefix + record).map { hexDigits[Int($0 >> 4)] + hexDigits[Int($0 & 15)] }
      .joined()
  }

  /// Line `number` of a sealed stream, without its line feed: the seal,
  /// a space and the record.
  public func sealed(_ record: some Collection<UInt8>, number: UInt64) -> [UInt8] {
    Array(seal(of: record, number: number).utf8) + [UInt8(ascii: " ")] + record
  }

  /// The record line `number` holds when its seal is right; nil otherwise.
  public func opened<Line: Collection<UInt8>>(_ line: Line, number: UInt64) -> Line.SubSequence? {
    guard line.count > Self.sealLength else { return nil }
    let split = line.index(line.startIndex, offsetBy: Self.sealLength)
    guard line[split] == UInt8(ascii: " ") else { return nil }
    let record = line[line.index(after: split)...]
    let expected = Array(seal(of: record, number: number).utf8)
    // Compared in full, whatever differs, so that the time taken says nothing.
    var difference: UInt8 = 0
    for (a, b) in zip(line[..<split], expected) { difference |= a ^ b }
    return difference == 0 ? record : nil
  }
}

private let hexDigits = (0..<16).map { String($0, radix: 16) }

/// SHA-256 (FIPS 180-4), for ``StreamSeal``: neither the test process nor the
/// grader may depend on a package, and Linux has no CryptoKit.
enum SHA256 {
  private static let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  /// The digest of `message`.
  static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
    var state: [UInt32] = [
      0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    var padded = Array(message)
    let bits = UInt64(padded.count) * 8
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    padded += (0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }
    var words = [UInt32](repeating: 0, count: 64)
    for block in stride(from: 0, to: padded.count, by: 64) {
      for i in 0..<16 {
        let at = block + 4 * i
        words[i] =
          UInt32(padded[at]) << 24 | UInt32(padded[at + 1]) << 16 | UInt32(padded[at + 2]) << 8
          | UInt32(padded[at + 3])
      }
      for i in 16..<64 {
        let s0 = rotate(words[i - 15], 7) ^ rotate(words[i - 15], 18) ^ (words[i - 15] >> 3)
        let s1 = rotate(words[i - 2], 17) ^ rotate(words[i - 2], 19) ^ (words[i - 2] >> 10)
        words[i] = words[i - 16] &+ s0 &+ words[i - 7] &+ s1
      }
      var (a, b, c, d, e, f, g, h) = (
        state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7]
      )
      for i in 0..<64 {
        let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
        let choice = (e & f) ^ (~e & g)
        let t1 = h &+ s1 &+ choice &+ roundConstants[i] &+ words[i]
        let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
        let majority = (a & b) ^ (a & c) ^ (b & c)
        let t2 = s0 &+ majority
        (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
      }
      for (i, value) in [a, b, c, d, e, f, g, h].enumerated() { state[i] &+= value }
    }
    return state.flatMap { word in (0..<4).reversed().map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
  }

  private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
    value >> count | value << (32 - count)
  }
}
