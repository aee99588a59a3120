import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// Whether `pid` is gone or a zombie within 10 s: on a busy machine a killed
/// process can wait a while for the CPU time it needs to exit.
private func isGoneSoon(_ pid: Int32) throws -> Bool {
  try eventually(within: 10) {
    let state = try Subprocess.run("ps", ["-o", "stat=", "-p", "\(pid)"]).standardOutput
      .trimmingCharacters(in: .whitespacesAndNewlines)
    return state.isEmpty || state.hasPrefix("Z")
  }
}

@Suite("Subprocess")
struct SubprocessTests {
  @Test("Exit codes and output are captured")
  func exitCode() throws {
    let outcome = try Subprocess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
    #expect(outcome.termination == .exited(3))
    #expect(outcome.standardOutput == "out\n")
    #expect(outcome.standardError == "err\n")
    #expect(!outcome.succeeded && !outcome.timedOut)
  }

  @Test(
    "A child leads a process group of its own, and on Linux a session of its own (scheduled apart from the shell's)"
  )
  func ownGroupAndSession() throws {
    let outcome = try Subprocess.run(
      "/bin/sh", ["-c", #"echo $$ $(ps -o pgid= -p $$) $(ps -o sid= -p $$)"#])
    let fields = outcome.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init)
    try #require(fields.count == 3, "\(outcome.standardOutput)\(outcome.standardError)")
    #expect(fields[1] == fields[0], "the child's process group is its own")
    #if os(Linux)
      #expect(fields[2] == fields[0], "the child's session is its own")
    #endif
  }

  @Test("A process killed by a signal says which")
  func signal() throws {
    let outcome = try Subprocess.run("/bin/sh", ["-c", "kill -SEGV $$"])
    #expect(outcome.termination == .signaled(11))
    #expect(outcome.termination.description == "signal 11 (SIGSEGV)")
  }

  @Test("A timeout kills the whole process group, grandchildren included")
  func timeoutKillsGroup() throws {
    let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "grandchild-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: pidFile) }
    let outcome = try Subprocess.run(
      "/bin/sh", ["-c", "sleep 30 & echo $! > \(pidFile.path); wait"], timeout: 1)
    #expect(outcome.timedOut)
    let pid = try #require(
      Int32(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(try isGoneSoon(pid), "grandchild \(pid) was not killed")
  }

  /// Whether this platform's spawn can close inherited descriptors: on
  /// Linux, glibc 2.34 or later.
  static var closesDescriptors: Bool {
    #if os(Linux)
      Subprocess.addCloseFrom != nil
    #else
      true
    #endif
  }

  @Test(
    "A child inherits no descriptor of the runner's but the ones it is given",
    .enabled(if: closesDescriptors, "this C library cannot close a child's inherited descriptors"))
  func noInheritedDescriptors() throws {
    // Opened without close-on-exec, as a library might, at a number well
    // above any the shell below uses for its own.
    let folder = try TemporaryFolder.shared.makeFolder("descriptors")
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("held")
    try Data().write(to: path)
    let opened = open(path.path, O_RDONLY)
    try #require(opened >= 0)
    let held = fcntl(opened, F_DUPFD, 200)
    close(opened)
    try #require(held >= 200)
    defer { close(held) }
    let given = folder.appendingPathComponent("given")
    // `/dev/fd/N` exists for the process that looks when its descriptor N
    // is open (Linux and macOS alike); 4 is given and 3 is not, so a gap
    // below the given ones must be closed too.
    let outcome = try Subprocess.run(
      "/bin/sh", ["-c", "for n in 3 4 \(held); do if [ -e /dev/fd/$n ]; then echo $n; fi; done"],
      files: [4: given.path])
    #expect(outcome.standardOutput == "4\n", "open in the child: \(outcome.standardOutput)")
  }

  @Test("A program that does not exist is a clear error")
  func missingProgram() {
    #expect {
      try Subprocess.run("no-such-program-\(UUID().uuidString)", [])
    } throws: { error in
      String(describing: error).contains("cannot start")
    }
  }
}
