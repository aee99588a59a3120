import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor

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

  @Test("A child inherits no descriptor of the runner's but the ones it is given")
  func noInheritedDescriptors() throws {
    // Opened without close-on-exec, as a library might.
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)")
    try Data().write(to: path)
    defer { try? FileManager.default.removeItem(at: path) }
    let held = open(path.path, O_RDONLY)
    try #require(held > 4)
    defer { close(held) }
    let given = path.deletingLastPathComponent().appendingPathComponent("given-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: given) }
    // `true >&N` fails in the shell when descriptor N is not open.
    let outcome = try Subprocess.run(
      "/bin/sh", ["-c", "for n in 3 4 \(held); do if { true >&$n; } 2>/dev/null; then echo $n; fi; done"],
      files: [3: given.path])
    #expect(outcome.standardOutput == "3\n", "open in the child: \(outcome.standardOutput)")
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
