import CheckTranscript
import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopMaintainer

/// A crash as Swift 6.3's backtracer prints it on Linux, a continuation
/// resumed twice in the learner's closure, called from a check.
private let backtrace = """
  _Concurrency/CheckedContinuation.swift:169: Fatal error: SWIFT TASK CONTINUATION MISUSE: profile(id:) tried to resume its continuation more than once, returning 2!

  *** Signal 4: Backtracing from 0x7f1f478f9361... done ***

  *** Program crashed: Illegal instruction at 0x00007f1f478f9361 ***

  Thread 0 "main":

    0      0x00007f1f47344301 sigsuspend + 65 in libc.so.6
    1 [ra] 0x00005563925a9a1a check() + 12 in WorkshopPackageTests.xctest at /w/Tests/06-ContinuationsTests/ContinuationsTests.swift:85:7
  ...

  Thread 1 "oot.default-qos" crashed:

    0                  0x00007f1f478f9361 _assertionFailure(_:_:file:line:flags:) + 225 in libswiftCore.so
    1 [ra]             0x00007f1f47ed18b9 CheckedContinuation.resume(returning:) + 344 in libswift_Concurrency.so
    2 [ra]             0x00005563925a9a1a closure #1 in ProfileBridge.profile(id:) + 89 in WorkshopPackageTests.xctest at /w/Chapters/06-Continuations/ProfileBridge.swift:48:18
    3 [ra]             0x00007f1f47e94d62 closure #1 in withCheckedContinuation<A>(isolation:function:_:) + 81 in libswift_Concurrency.so
    4 [async]          0x00005563925a98a0 ContinuationsTests.both() in WorkshopPackageTests.xctest at /w/Tests/06-ContinuationsTests/ContinuationsTests.swift:160
  ...

  Registers:

  rax 0x0000000200000003  8589934595
  """

@Suite("What the Swift runtime says as a process crashes")
struct RuntimeMessageTests {
  @Test("The crashed thread's first frame in the code under test is where it stopped: folder, file and line")
  func stopInTheLearnersCode() {
    #expect(
      RuntimeMessage.stop(in: backtrace)
        == "Stopped at 06-Continuations/ProfileBridge.swift:48, in closure #1 in ProfileBridge.profile(id:)")
    #expect(
      RuntimeMessage.lines(in: backtrace) == [
        "_Concurrency/CheckedContinuation.swift:169: Fatal error: SWIFT TASK CONTINUATION MISUSE: profile(id:) tried to resume its continuation more than once, returning 2!",
        "*** Program crashed: Illegal instruction at 0x00007f1f478f9361 ***",
        "Stopped at 06-Continuations/ProfileBridge.swift:48, in closure #1 in ProfileBridge.profile(id:)",
      ])
  }

  @Test(
    "Only a runtime stopping the process counts as stopping: a fatal error or a crash, not a leak warning")
  func stopping() {
    #expect(
      RuntimeMessage.saysItIsStopping(
        "_Concurrency/CheckedContinuation.swift:193: Fatal error: SWIFT TASK CONTINUATION MISUSE: profile(id:) tried to resume its continuation more than once"
      ))
    #expect(
      RuntimeMessage.saysItIsStopping("*** Program crashed: Illegal instruction at 0x00007f411b8f9361 ***"))
    #expect(
      !RuntimeMessage.saysItIsStopping(
        "SWIFT TASK CONTINUATION MISUSE: profile(id:) leaked its continuation without resuming it. This may cause tasks waiting on it to remain suspended forever."
      ))
    #expect(!RuntimeMessage.saysItIsStopping("WARNING: ThreadSanitizer: data race (pid=14872)"))
    #expect(!RuntimeMessage.saysItIsStopping(""))
  }

  @Test("Frames in the checks, in other threads, or without a place are never where it stopped")
  func notTheChecks() {
    // The crashed thread ran only the check's own code: no stop to name.
    let inTheCheck = backtrace.replacingOccurrences(
      of: "/w/Chapters/06-Continuations/ProfileBridge.swift:48:18",
      with: "/w/Tests/06-ContinuationsTests/Helpers.swift:12:3")
    #expect(RuntimeMessage.stop(in: inTheCheck) == nil)
    // An async frame has no offset; it is read all the same.
    let async =
      "Thread 2 crashed:\n  5 [async] 0x00005563925a98a0 twice() in bt at /w/Chapters/01-X/Y.swift:2\n"
    #expect(RuntimeMessage.stop(in: async) == "Stopped at 01-X/Y.swift:2, in twice()")
    // No backtrace (macOS by default, or the backtracer turned off): nothing.
    #expect(RuntimeMessage.stop(in: "Fatal error: x\n") == nil)
    #expect(RuntimeMessage.lines(in: "Fatal error: x\n") == ["Fatal error: x"])
  }
}

@Suite("Failures never name the hidden checks")
struct HiddenChecksTests {
  @Test("verify finds a failure that names a path under Tests/ or a test file, and not the learner's files")
  func namesOfTheChecks() throws {
    let workspace = try Workspace.locate(from: URL(fileURLWithPath: #filePath))
    let chapter = try #require(workspace.curriculum.chapter(matching: "06"))
    func report(_ issues: [CheckIssue]) -> ChapterReport {
      ChapterReport(
        chapter: chapter,
        checks: [CheckResult(id: "x", name: "Resumes once", status: .failed, issues: issues)])
    }
    #expect(
      Verifier.namesOfTheChecks(in: report(["Expected 1\n(at ContinuationsTests.swift:170)"]))
        == ["a failure names a file of the checks (ContinuationsTests.swift:170): Resumes once"])
    #expect(
      !Verifier.namesOfTheChecks(
        in: report(["thread T5 changed it at Tests/06-ContinuationsTests/C.swift:85"])
      ).isEmpty)
    var race = CheckIssue("Data race")
    race.codeLocation = "Tests/06-ContinuationsTests/C.swift:85"
    #expect(!Verifier.namesOfTheChecks(in: report([race])).isEmpty)
    // The learner's own file, and a word that only ends in "Tests", are fine.
    #expect(
      Verifier.namesOfTheChecks(
        in: report([
          "Stopped at 06-Continuations/ProfileBridge.swift:48",
          "The Tests pass; see Chapters/06-Continuations/ProfileBridge.swift:3",
        ])
      )
      .isEmpty)
  }
}
