import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A named pipe the test process writes its event stream into, read while it
/// is written, on a thread of its own.
///
/// A pipe holds little (16 KiB on macOS, 64 KiB on Linux): a reader that
/// looked only now and then would let Swift Testing's writer block, and with
/// it the check that recorded an issue. The reader thread wakes as soon as
/// anything arrives.
final class EventFIFO: @unchecked Sendable {
  let path: String
  private let reader: Int32
  /// Held open so that reads never see an end before the test process opens
  /// the pipe, or after it closes it, while it still runs.
  private let keeper: Int32
  /// A pipe whose only job is to wake the reader thread when it should stop.
  private let wake: (read: Int32, write: Int32)
  private let buffer = Mutex(Data())
  private let stopping = Atomic(false)
  private let stopped = DispatchSemaphore(value: 0)
  private let finished = Atomic(false)
  /// Set when the process wrote more than ``capacity``.
  let overflowed = Atomic(false)
  /// The most of a stream kept, in bytes: every record of a chapter's run
  /// is a few hundred kilobytes at most.
  static let capacity = 64 << 20

  init(at url: URL) throws {
    path = url.path
    guard mkfifo(path, 0o600) == 0 else {
      throw GradingError(description: "cannot create \(path): \(String(cString: strerror(errno)))")
    }
    // Close-on-exec: no process the grader starts, code under test least of
    // all, may hold the grader's ends of the pipe.
    reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    keeper = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
    var ends: [Int32] = [-1, -1]
    let piped = pipe(&ends) == 0
    for end in ends where end >= 0 {
      // A child started in between may inherit these; all it could do is
      // wake the reader, which then reads on (see `readUntilStopped`).
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, O_NONBLOCK)
    }
    wake = (ends[0], ends[1])
    guard reader >= 0, keeper >= 0, piped else {
      for descriptor in [reader, keeper, ends[0], ends[1]] where descriptor >= 0 { close(descriptor) }
      throw GradingError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
    }
    Thread.detachNewThread { [self] in readUntilStopped() }
  }

  /// The reader thread: waits for the stream or the wake pipe, and reads
  /// whatever came, until ``stop()``.
  private func readUntilStopped() {
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var descriptors = [
      pollfd(fd: reader, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
    ]
    while !stopping.load(ordering: .acquiring) {
      guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else { break }
      if descriptors[1].revents != 0 {
        while chunk.withUnsafeMutableBytes({ read(wake.read, $0.baseAddress, $0.count) }) > 0 {}
      }
      readAvailable(&chunk)
    }
    readAvailable(&chunk)
    stopped.signal()
  }

  /// Reads everything the pipe holds now.
  private func readAvailable(_ chunk: inout [UInt8]) {
    while true {
      let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
      guard count > 0 else { return }
      buffer.withLock { buffer in
        // Past the cap, what the process writes is read and dropped: the
        // stream is then cut, which voids the run (a record is left whole
        // or missing), and the grader's memory stays bounded.
        let room = max(0, Self.capacity - buffer.count)
        if room < count { overflowed.store(true, ordering: .releasing) }
        buffer.append(contentsOf: chunk[0..<min(count, room)])
      }
    }
  }

  /// Stops the reader thread after it read what the pipe holds; once.
  private func stop() {
    guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
    var byte: UInt8 = 1
    _ = write(wake.write, &byte, 1)
    stopped.wait()
  }

  /// What was read of the stream from byte `offset` on, until now, while
  /// the reader goes on reading.
  func bytes(from offset: Int) -> Data {
    buffer.withLock { $0.count > offset ? Data($0[($0.startIndex + offset)...]) : Data() }
  }

  /// The whole stream, once the reader has read everything the pipe held:
  /// nothing written later is read.
  var data: Data {
    stop()
    return buffer.withLock { Data($0) }
  }

  /// ``data`` as text.
  var text: String { String(decoding: data, as: UTF8.self) }

  /// Stops reading and closes the pipe; nothing written after this is read.
  func finish() {
    stop()
    guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
    for descriptor in [reader, keeper, wake.read, wake.write] { close(descriptor) }
  }
}
