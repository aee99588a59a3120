import CheckTranscript
import Foundation

/// Reading a stream's lines into records, whole or as the stream grows.
extension EventStream {
  /// Decodes the lines of a stream; lines that are not records are skipped.
  ///
  /// Lines end at a line feed and nowhere else (JSON Lines). A record's
  /// strings may hold U+2028, U+2029 and U+0085 unescaped (JSON escapes
  /// only control characters, and Swift Testing writes them as they are):
  /// a failure whose message quotes such a value (code under test can
  /// return one), split there, would be two broken halves, skipped, and
  /// the check would pass.
  static func records(fromJSONLines text: String) -> [Record] {
    var reader = RecordReader()
    reader.read(Data(text.utf8), final: true)
    return reader.records
  }

  /// Decodes a stream's records as it grows: each ``read(_:final:)``
  /// decodes only the lines completed since the last, so that a run
  /// watched once a second is read once, not once a second from the start.
  ///
  /// ```swift
  /// var reader = EventStream.RecordReader()
  /// reader.read(fifo.bytes(from: reader.consumed))
  /// let summary = EventStream.summary(of: reader.records)
  /// ```
  struct RecordReader {
    /// The records decoded so far, in the stream's order.
    private(set) var records: [Record] = []
    /// How many bytes of the stream were read: up to the end of its last
    /// complete line.
    private(set) var consumed = 0
    /// Set once a line of a sealed stream is not sealed, or sealed out of
    /// order: nothing after it is read, and the run counts for nothing.
    private(set) var isForged = false
    private let decoder = JSONDecoder()
    /// The seal every line must carry, numbered from 0; nil for a stream
    /// Swift Testing writes itself (macOS, learners' `swift test`).
    private let seal: StreamSeal?
    private var lines: UInt64 = 0

    init(seal: StreamSeal? = nil) {
      self.seal = seal
    }

    /// Decodes the complete lines of `bytes`, the stream from ``consumed``
    /// on; with `final`, the last line too, complete or not.
    mutating func read(_ bytes: Data, final: Bool = false) {
      let newline = UInt8(ascii: "\n")
      var start = bytes.startIndex
      while start < bytes.endIndex {
        guard let end = bytes[start...].firstIndex(of: newline) ?? (final ? bytes.endIndex : nil) else {
          break
        }
        var line = bytes[start..<end]
        if let seal, !isForged {
          if let record = seal.opened(line, number: lines) {
            line = record
            lines += 1
          } else {
            isForged = true
          }
        }
        if !line.isEmpty, !isForged, let record = try? decoder.decode(Record.self, from: line) {
          records.append(record)
        }
        start = end < bytes.endIndex ? bytes.index(after: end) : end
      }
      consumed += bytes.distance(from: bytes.startIndex, to: start)
    }
  }
}

extension EventStream {
  /// `records` with the content of each attachment the run saved in
  /// `folder` (`--attachments-path`) read in. The stream is written inside
  /// the test process, so it can name any path: only a regular file right
  /// in `folder`, not a link, and no larger than a verdict can be, is read.
  /// Swift Testing names the file by the folder's real path (on macOS,
  /// `/private/var/folders/...` for `/var/folders/...`): either spelling is
  /// the folder.
  /// Each file is read once, however many records name it, and no more
  /// than `budget` bytes in all.
  static func readingAttachments(_ records: [Record], savedIn folder: URL, budget: Int = 64 << 20) -> [Record]
  {
    let base = Files.realPath(folder.path)
    var read: [String: [UInt8]?] = [:]
    var left = budget
    return records.map { record in
      guard case .event(var event) = record.payload, var attachment = event.attachment,
        attachment.bytes == nil, let path = attachment.path
      else { return record }
      let url = URL(fileURLWithPath: path)
      let name = url.lastPathComponent
      guard let base, Files.realPath(url.deletingLastPathComponent().path) == base, name != "..", name != "."
      else { return record }
      if read[name] == nil {
        let bytes =
          left > 0
          ? Files.readRegularFile(folder.appendingPathComponent(name), atMost: Verdict.largestAttachment)
          : nil
        left -= bytes?.count ?? 0
        read[name] = .some(bytes)
      }
      attachment.bytes = read[name] ?? nil
      event.attachment = attachment
      var read = record
      read.payload = .event(event)
      return read
    }
  }
}
