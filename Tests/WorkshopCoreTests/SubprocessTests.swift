import Foundation
import Testing

@testable import WorkshopCore

/// Whether `pid` is gone, a zombie, or has SIGKILL pending (on a busy machine
/// a killed process can wait a while for the CPU time it needs to exit).
private func isDeadOrDying(_ pid: Int32) -> Bool {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return true }
  let fields = Dictionary(
    status.split(separator: "\n").compactMap { line -> (String, String)? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }, uniquingKeysWith: { first, _ in first })
  if fields["State"]?.hasPrefix("Z") == true { return true }
  let sigkill: UInt64 = 1 << 8
  return ["SigPnd", "ShdPnd"].contains {
    UInt64(fields[$0] ?? "0", radix: 16).map { $0 & sigkill != 0 } ?? false
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
    #expect(isDeadOrDying(pid), "grandchild \(pid) was not killed")
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
