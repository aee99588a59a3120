// The grader's test entry point on Linux, written out so that SwiftPM need
// not discover the tests.
//
// Without it SwiftPM generates an entry point on Linux, plus a module listing
// every XCTest test case, which it reads from the compiler's index: so every
// build there indexes every module it compiles. The checks are Swift Testing
// tests, found at run time, and none are XCTest's: with this entry point the
// grader builds without an index (`--disable-index-store`), about a third less
// time for a cold build.
//
// Only the grader's builds use it: SwiftPM looks for this file in the folders
// above each test target, and only with `WORKSHOP_TEST_ENTRY_POINT=1` does the
// manifest declare the test target below it (`Anchor`). Learners' `swift test`
// never sees it, for with an entry point file `swift test` runs Swift Testing
// only when told to (`--enable-swift-testing`). SwiftPM reads none on macOS.
//
// It answers as the generated one does: `--testing-library swift-testing`
// runs the Swift Testing tests, anything else XCTest's (there are none).
//
// With `WORKSHOP_SEALED_STREAM=1` (every run of the grader's) it also seals
// the event stream: it reads a key of the grader's from standard input
// before any code under test can run, keeps it only in the closure that
// writes the stream, and hands Swift Testing that closure instead of the
// stream's path (Swift Testing's ABI entry point, `swt_abiv0_getEntryPoint`).
// Each record goes out sealed (see `StreamSeal`): a line that code under
// test writes into the stream, found by its descriptor, has no valid seal.

import Foundation
import Synchronization
// The seal (`Anchor/StreamSeal.swift`), in the target that makes SwiftPM
// find this file: the fixtures' and the course's builds all have it.
import TestEntryPointAnchor

#if canImport(Testing)
  import Testing
#endif
#if canImport(XCTest)
  import XCTest
#endif

@main
struct TestEntryPoint {
  static func main() async {
    let arguments = CommandLine.arguments
    let library =
      zip(arguments, arguments.dropFirst())
      .first { $0.0 == "--testing-library" }?.1.lowercased() ?? "xctest"
    #if canImport(Testing)
      if library == "swift-testing" {
        if ProcessInfo.processInfo.environment["WORKSHOP_SEALED_STREAM"] == "1" {
          await runSealed(arguments)
        }
        await Testing.__swiftPMEntryPoint() as Never
      }
    #endif
    #if canImport(XCTest)
      XCTMain([]) as Never
    #endif
  }
}

#if canImport(Testing)
  /// Swift Testing's ABI entry point, version 0: the configuration as JSON,
  /// and a closure that gets each record of the event stream.
  typealias ABIEntryPoint =
    @convention(thin) @Sendable (
      _ configurationJSON: UnsafeRawBufferPointer?,
      _ recordHandler: @escaping @Sendable (_ recordJSON: UnsafeRawBufferPointer) -> Void
    ) async throws -> Bool

  @_silgen_name("swt_abiv0_getEntryPoint")
  func abiEntryPoint() -> UnsafeRawPointer

  /// Runs the checks the grader's `arguments` name, writing the event
  /// stream sealed, and exits: 0 when every check passed, 1 otherwise.
  func runSealed(_ arguments: [String]) async -> Never {
    // The key first, before anything runs that code under test could be in.
    var key = [UInt8](repeating: 0, count: StreamSeal.keySize)
    var read = 0
    while read < key.count {
      let count = key.withUnsafeMutableBytes { bytes in
        Foundation.read(0, bytes.baseAddress! + read, bytes.count - read)
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      read += count
    }
    // Nothing else is read from standard input: what follows sees an end.
    let empty = open("/dev/null", O_RDONLY)
    if empty >= 0, empty != 0 {
      dup2(empty, 0)
      close(empty)
    }
    var configuration = __CommandLineArguments_v0()
    var path: String?
    var index = arguments.startIndex
    while index < arguments.endIndex {
      let value = arguments.index(after: index) < arguments.endIndex ? arguments[index + 1] : nil
      switch (arguments[index], value) {
      case ("--filter", let value?): configuration.filter = (configuration.filter ?? []) + [value]
      case ("--skip", let value?): configuration.skip = (configuration.skip ?? []) + [value]
      case ("--event-stream-output-path", let value?): path = value
      case ("--event-stream-version", let value?):
        // Swift Testing 6.3 names versions by strings; 6.2 has only the
        // number, which 6.3 keeps as a deprecated property.
        #if compiler(>=6.3)
          configuration.eventStreamSchemaVersion = value
        #else
          configuration.eventStreamVersion = Int(value)
        #endif
      case ("--attachments-path", let value?): configuration.attachmentsPath = value
      case ("--no-parallel", _): configuration.parallel = false
      default: break
      }
      index += 1
    }
    // Swift Testing 6.2 puts no attachment's bytes in the stream, only the
    // path of the file it saved (6.3 puts them in): with no folder given
    // (the sandbox, where the grader's folder is read-only), attachments
    // go to a private folder, and the writer puts each one's bytes in its
    // record, so that the kit's verdicts reach the grader on both. Only with
    // a key: an exit test's child writes no stream, and leaves no folder.
    var inlining: String?
    if configuration.attachmentsPath == nil, read == key.count {
      let temporary = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath()
      let folder = temporary.appendingPathComponent("workshop-attachments-\(getpid())").path
      if mkdir(folder, 0o700) == 0 {
        configuration.attachmentsPath = folder
        inlining = folder
      }
    }
    // Without a whole key (an exit test's child process, started by Swift
    // Testing with nothing on its standard input) nothing is written: such
    // a child reports to its parent on a channel of Swift Testing's own.
    let writer = SealedWriter(
      descriptor: read == key.count
        ? path.map { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) } ?? -1 : -1,
      seal: StreamSeal(key: key), inlining: inlining,
      droppingBytes: ProcessInfo.processInfo.environment["WORKSHOP_STREAM_WITHOUT_BYTES"] == "1")
    for index in key.indices { key[index] = 0 }
    let handler: @Sendable (UnsafeRawBufferPointer) -> Void = { writer.write($0) }
    let entryPoint = unsafeBitCast(abiEntryPoint(), to: ABIEntryPoint.self)
    do {
      let json = try JSONEncoder().encode(configuration)
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: json.count, alignment: 1)
      buffer.copyBytes(from: json)
      let passed = try await entryPoint(UnsafeRawBufferPointer(buffer), handler)
      exit(passed ? 0 : 1)
    } catch {
      FileHandle.standardError.write(Data("error: \(error)\n".utf8))
      exit(1)
    }
  }

  /// Writes records to the grader's stream, each sealed with the next number.
  final class SealedWriter: Sendable {
    private let descriptor: Int32
    private let state: Mutex<(seal: StreamSeal, number: UInt64)>
    /// The private folder attachments are saved in, whose files' bytes go
    /// into their records; nil when the grader reads the files itself.
    private let inlining: String?
    /// Drops the bytes Swift Testing put in a record before inlining them
    /// from the file, as Swift Testing 6.2 writes it: the runner's tests
    /// take 6.2's path on a 6.3 toolchain this way.
    private let droppingBytes: Bool

    init(descriptor: Int32, seal: StreamSeal, inlining: String?, droppingBytes: Bool) {
      self.descriptor = descriptor
      state = Mutex((seal, 0))
      self.inlining = inlining
      self.droppingBytes = droppingBytes
    }

    /// `record` with its attachment's bytes read from the file Swift
    /// Testing saved in the private folder; nil when there is nothing to do.
    private func inlined(_ record: UnsafeRawBufferPointer) -> Data? {
      guard let inlining, Data(record).range(of: Data(#""attachment""#.utf8)) != nil,
        var object = try? JSONSerialization.jsonObject(with: Data(record)) as? [String: Any],
        var payload = object["payload"] as? [String: Any],
        var attachment = payload["attachment"] as? [String: Any]
      else { return nil }
      if droppingBytes {
        attachment["_bytes"] = nil
        attachment["bytes"] = nil
      }
      guard attachment["_bytes"] == nil, attachment["bytes"] == nil,
        let path = attachment["path"] as? String, path.hasPrefix(inlining + "/"),
        case let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), descriptor >= 0,
        case let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true),
        let bytes = try? handle.read(upToCount: 4 << 20)
      else { return droppingBytes ? try? JSONSerialization.data(withJSONObject: object) : nil }
      unlink(path)
      attachment["_bytes"] = bytes.base64EncodedString()
      payload["attachment"] = attachment
      object["payload"] = payload
      return try? JSONSerialization.data(withJSONObject: object)
    }

    func write(_ record: UnsafeRawBufferPointer) {
      guard descriptor >= 0 else { return }
      let inlined = inlined(record)
      state.withLock { state in
        var line =
          inlined.map { state.seal.sealed([UInt8]($0), number: state.number) }
          ?? state.seal.sealed(record, number: state.number)
        line.append(UInt8(ascii: "\n"))
        state.number += 1
        line.withUnsafeBytes { bytes in
          var written = 0
          while written < bytes.count {
            let count = Foundation.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
          }
        }
      }
    }
  }
#endif
