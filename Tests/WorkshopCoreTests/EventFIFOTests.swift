import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("The event pipe")
struct EventFIFOTests {
  @Test("The stream is read while it is written: a writer never waits on a full pipe")
  func readWhileWritten() throws {
    let folder = try TemporaryFolder.shared.makeFolder("fifo-test")
    defer { try? FileManager.default.removeItem(at: folder) }
    let fifo = try EventFIFO(at: folder.appendingPathComponent("events.jsonl"))
    defer { fifo.finish() }
    // 256 KiB: four times what a pipe holds on Linux, sixteen times macOS's.
    // Written with blocking writes, as Swift Testing writes its stream, and
    // with nothing calling the reader: only a reader of its own empties it.
    let line = Data((String(repeating: "x", count: 1023) + "\n").utf8)
    let lines = 256
    let written = DispatchSemaphore(value: 0)
    let path = fifo.path
    Thread.detachNewThread {
      let writer = open(path, O_WRONLY | O_CLOEXEC)
      for _ in 0..<lines {
        _ = line.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
      }
      close(writer)
      written.signal()
    }
    // A real-time bound only for a reader that never reads: a working one
    // empties the pipe as fast as it fills.
    let finished = written.wait(timeout: .now() + 10) == .success
    #expect(finished, "the writer was still blocked on a full pipe after 10 s")
    if !finished {
      // Unblock the writer, so that closing the pipe cannot kill it with SIGPIPE.
      let drain = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
      var chunk = [UInt8](repeating: 0, count: 64 * 1024)
      while written.wait(timeout: .now() + 0.01) != .success {
        _ = chunk.withUnsafeMutableBytes { read(drain, $0.baseAddress, $0.count) }
      }
      close(drain)
      return
    }
    #expect(fifo.text.utf8.count == lines * line.count)
  }
}
