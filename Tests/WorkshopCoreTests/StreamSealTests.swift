import CheckTranscript
import Foundation
import Testing

@testable import WorkshopCore

@Suite("The sealed event stream")
struct StreamSealTests {
  private static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }

  @Test(
    "HMAC-SHA-256 gives RFC 4231's codes, for a short key and for a key longer than a block",
    arguments: [
      (
        Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      ),
      (
        [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
      ),
      (
        [UInt8](repeating: 0xaa, count: 131),
        Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
      ),
    ])
  func knownCodes(key: [UInt8], message: [UInt8], code: String) {
    #expect(Self.hex(StreamSeal(key: key).authenticationCode(message)) == code)
  }

  private static let records = [
    #"{"kind":"event","payload":{"kind":"testStarted","testID":"T/a()","messages":[]},"version":0}"#,
    #"{"kind":"event","payload":{"kind":"testEnded","testID":"T/a()","messages":[]},"version":0}"#,
    #"{"kind":"event","payload":{"kind":"runEnded","messages":[]},"version":0}"#,
  ]

  private static func stream(_ lines: [[UInt8]]) -> Data {
    Data(lines.flatMap { $0 + [UInt8(ascii: "\n")] })
  }

  @Test("A stream sealed with the key, in order, is read whole, and read as it grows")
  func sealedStream() {
    let seal = StreamSeal(key: StreamSeal.makeKey())
    let lines = Self.records.enumerated().map { seal.sealed(Array($1.utf8), number: UInt64($0)) }
    var whole = EventStream.RecordReader(seal: seal)
    whole.read(Self.stream(lines), final: true)
    #expect(whole.records.count == 3 && !whole.isForged)
    var growing = EventStream.RecordReader(seal: seal)
    let bytes = Self.stream(lines)
    growing.read(bytes.prefix(bytes.count - 10))
    growing.read(bytes.dropFirst(growing.consumed), final: true)
    #expect(growing.records.count == 3 && !growing.isForged)
  }

  @Test(
    "A line not sealed, sealed with another key, out of its place, or changed, voids everything from there on",
    arguments: ["unsealed", "other key", "swapped", "replayed", "changed", "dropped"])
  func forgedLines(kind: String) {
    let seal = StreamSeal(key: StreamSeal.makeKey())
    var lines = Self.records.enumerated().map { seal.sealed(Array($1.utf8), number: UInt64($0)) }
    switch kind {
    case "unsealed": lines.insert(Array(Self.records[1].utf8), at: 1)
    case "other key":
      lines[1] = StreamSeal(key: StreamSeal.makeKey()).sealed(Array(Self.records[1].utf8), number: 1)
    case "swapped": lines.swapAt(1, 2)
    case "replayed": lines.insert(lines[0], at: 1)
    case "changed": lines[1][lines[1].count - 3] ^= 1
    default: lines.remove(at: 1)
    }
    var reader = EventStream.RecordReader(seal: seal)
    reader.read(Self.stream(lines), final: true)
    #expect(reader.isForged)
    #expect(reader.records.count == 1)
  }

  @Test("A key is fresh for every process and the seal a function of key, number and record")
  func freshKeys() {
    let first = StreamSeal.makeKey()
    let second = StreamSeal.makeKey()
    #expect(first.count == StreamSeal.keySize && first != second)
    let record = Array(Self.records[0].utf8)
    #expect(
      StreamSeal(key: first).seal(of: record, number: 0) == StreamSeal(key: first).seal(of: record, number: 0)
    )
    #expect(
      StreamSeal(key: first).seal(of: record, number: 0) != StreamSeal(key: first).seal(of: record, number: 1)
    )
    #expect(
      StreamSeal(key: first).seal(of: record, number: 0)
        != StreamSeal(key: second).seal(of: record, number: 0))
  }
}
