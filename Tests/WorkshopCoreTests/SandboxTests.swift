import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// Runs a shell script in the sandbox, with `folder` shared, and reports how it ended.
private func inSandbox(_ script: String, sharing folder: URL, timeLimit: Double = 60) throws -> ProcessOutcome
{
  try #require(Sandbox.current).run(
    TestLauncher.Command(executable: "/bin/sh", arguments: ["-c", script], environment: [:]), shared: folder,
    timeLimit: timeLimit)
}

private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent()
  .deletingLastPathComponent()

@Suite(
  "Sandbox for code under test",
  .enabled(if: Sandbox.current != nil, MissingTool.sandbox))
struct SandboxTests {
  @Test("The repository and the build are read-only; the shared folder and a private /tmp are writable")
  func readOnly() throws {
    let folder = try TemporaryFolder.shared.makeFolder("sandbox-test")
    let outcome = try inSandbox(
      """
      touch \(repository.path)/Tests/written-by-code-under-test 2>/dev/null && echo wrote-tests
      touch \(repository.path)/.build/written 2>/dev/null && echo wrote-build
      touch \(folder.path)/shared && echo wrote-shared
      touch /tmp/private && echo wrote-tmp
      """, sharing: folder)
    #expect(outcome.standardOutput == "wrote-shared\nwrote-tmp\n")
    #expect(!FileManager.default.fileExists(atPath: repository.path + "/Tests/written-by-code-under-test"))
    #expect(!FileManager.default.fileExists(atPath: "/tmp/private"))
  }

  @Test(
    "A build's tools write only its build folder, see none of the grader's environment, and reach no host socket"
  )
  func buildTools() throws {
    let package = try TemporaryFolder.shared.makeFolder("sandboxed-package")
    let scratch = package.appendingPathComponent(".build/workshop")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    setenv("WORKSHOP_TEST_SECRET_TOKEN", "s3cr3t", 1)
    defer { unsetenv("WORKSHOP_TEST_SECRET_TOKEN") }
    var sandbox = try #require(Sandbox.current)
    sandbox.hidden = [repository.appendingPathComponent("Solutions").path]
    let outcome = try sandbox.build(
      "/bin/sh",
      [
        "-c",
        """
        touch \(package.path)/Package.swift 2>/dev/null && echo wrote-package
        touch \(repository.path)/.build/linked-by-learner 2>/dev/null && echo wrote-repository
        touch \(scratch.path)/object.o && echo wrote-scratch
        ls \(repository.path)/Solutions | wc -l
        ls /run | wc -l
        echo "token=$WORKSHOP_TEST_SECRET_TOKEN home=$HOME"
        """,
      ], environment: Grader.childEnvironment, package: package, scratch: scratch, timeLimit: 60)
    #expect(
      outcome.standardOutput
        == "wrote-scratch\n0\n0\ntoken= home=\(scratch.appendingPathComponent("home").path)\n",
      "\(outcome.standardError)")
    #expect(!FileManager.default.fileExists(atPath: repository.path + "/.build/linked-by-learner"))
  }

  @Test("A build sees its package when the package is a folder right in /tmp, as a fresh clone there is")
  func packageRightInTmp() throws {
    let package = URL(fileURLWithPath: "/tmp/workshop-sandbox-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: package) }
    let scratch = package.appendingPathComponent(".build/workshop")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    try "// swift-tools-version: 6.2\n".write(
      to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    let outcome = try #require(Sandbox.current).build(
      "/bin/sh", ["-c", "cat \(package.path)/Package.swift && touch \(scratch.path)/built && echo built"],
      environment: Grader.childEnvironment, package: package, scratch: scratch, timeLimit: 60)
    #expect(outcome.standardOutput == "// swift-tools-version: 6.2\nbuilt\n", "\(outcome.standardError)")
    #expect(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("built").path))
  }

  @Test(
    "Inside the sandbox only the allowlist can be read: the system, the toolchain and the job's own copy; no course root, classmate, verify leftover, home or /etc secret"
  )
  func allowlist() throws {
    // A course as `grade` lays it out: the pristine checkout, a job's copy
    // in its build folder, a classmate's archive, verify's leftovers.
    let course = try TemporaryFolder.shared.makeFolder("allowlist-course")
    let slot = course.appendingPathComponent(".build/workshop-grade/0")
    let scratch = slot.appendingPathComponent(".build/workshop")
    let files = FileManager.default
    for folder in [
      scratch, course.appendingPathComponent("Solutions"), course.appendingPathComponent("submissions"),
      course.appendingPathComponent(".build/workshop-mutations"),
      slot.appendingPathComponent("Chapters/01-A"),
    ] {
      try files.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    let secrets = [
      "Solutions/A.swift", "submissions/classmate.zip", ".build/workshop-mutations/solution.swift",
      ".build/workshop-grade/items.json",
    ]
    for path in secrets {
      try "secret".write(to: course.appendingPathComponent(path), atomically: true, encoding: .utf8)
    }
    try "mine".write(
      to: slot.appendingPathComponent("Chapters/01-A/A.swift"), atomically: true, encoding: .utf8)
    let sandbox = try #require(Sandbox.current)
    let outcome = try sandbox.build(
      "/bin/sh",
      [
        "-c",
        """
        echo top: $(ls -A / | sort)
        echo etc: $(ls -A /etc | sort)
        echo tmp: $(find /tmp -mindepth 1 -maxdepth 64 -not -path '\(slot.path)/*' | sort)
        for f in \(secrets.map { course.appendingPathComponent($0).path }.joined(separator: " ")) /root /home /work /etc/shadow; do
          ls "$f" >/dev/null 2>&1 && echo "sees $f"
        done
        cat \(slot.path)/Chapters/01-A/A.swift
        """,
      ], environment: Grader.childEnvironment, package: slot, scratch: scratch, timeLimit: 60)
    let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
    let expectedTop = Set(
      Sandbox.systemEntries.map { entry -> String in
        switch entry {
        case .folder(let path), .link(let path, _): return String(path.split(separator: "/")[0])
        }
      } + ["dev", "proc", "tmp", "run"])
    let top = Set(
      lines.first { $0.hasPrefix("top:") }?.split(separator: " ").dropFirst().map(String.init) ?? [])
    #expect(top == expectedTop, "\(outcome.standardError)")
    let etc = Set(
      lines.first { $0.hasPrefix("etc:") }?.split(separator: " ").dropFirst().map(String.init) ?? [])
    #expect(
      etc.isSubset(of: [
        "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group",
        "nsswitch.conf", "localtime", "timezone", "os-release", "debian_version",
      ]), "\(etc)")
    // In /tmp, only the way to the job's copy.
    var ancestors: [String] = []
    var folder = slot
    while folder.path != "/tmp" {
      ancestors.append(folder.path)
      folder.deleteLastPathComponent()
    }
    let tmp = lines.first { $0.hasPrefix("tmp:") }?.split(separator: " ").dropFirst().map(String.init) ?? []
    #expect(Set(tmp) == Set(ancestors), "\(tmp)")
    #expect(!lines.contains { $0.hasPrefix("sees ") }, "\(lines)")
    #expect(lines.last == "mine")
  }

  @Test("A build's tool is never one in the folders the build can write")
  func buildToolOutsideBuild() throws {
    let package = try TemporaryFolder.shared.makeFolder("sandboxed-package")
    let scratch = package.appendingPathComponent(".build/workshop")
    #expect(throws: GradingError.self) {
      try #require(Sandbox.current).build(
        scratch.appendingPathComponent("ld.gold").path, [], environment: [:], package: package,
        scratch: scratch,
        timeLimit: 10)
    }
  }

  @Test(
    "A test run's event folder is read-only: its FIFO takes the records, no file takes room, and process 1 cannot be stopped"
  )
  func readOnlyEventFolder() throws {
    let folder = try TemporaryFolder.shared.makeFolder("sandbox-events")
    let stream = try EventFIFO(at: folder.appendingPathComponent("events.jsonl"))
    defer { stream.finish() }
    let handedOut = folder.deletingLastPathComponent().appendingPathComponent(
      folder.lastPathComponent + ".log")
    defer { try? FileManager.default.removeItem(at: handedOut) }
    let outcome = try #require(Sandbox.current).run(
      TestLauncher.Command(
        executable: "/bin/sh",
        arguments: [
          "-c",
          """
          echo '{"record":1}' > \(stream.path) && echo wrote-fifo
          head -c 1000000 /dev/zero > \(folder.path)/filler 2>/dev/null && echo wrote-filler
          kill -STOP 1 2>/dev/null; echo still-running
          echo handed-out >&4
          """,
        ], environment: [:]),
      shared: folder, timeLimit: 30, readOnly: true, files: [4: handedOut.path])
    #expect(outcome.standardOutput == "wrote-fifo\nstill-running\n", "\(outcome.standardError)")
    #expect(stream.text == "{\"record\":1}\n")
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("filler").path))
    #expect(try String(contentsOf: handedOut, encoding: .utf8) == "handed-out\n")
  }

  @Test("A program in a checkout under /tmp runs in the sandbox, and its checkout stays read-only")
  func checkoutUnderTmp() throws {
    let checkout = URL(fileURLWithPath: "/tmp/workshop-sandbox-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: checkout, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: checkout) }
    let program = checkout.appendingPathComponent("program")
    try "#!/bin/sh\necho ran; touch \(checkout.path)/written 2>/dev/null && echo wrote\n"
      .write(to: program, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: checkout.path)
    let folder = try TemporaryFolder.shared.makeFolder("sandbox-test")
    let outcome = try #require(Sandbox.current).run(
      TestLauncher.Command(executable: program.path, arguments: [], environment: [:]), shared: folder,
      timeLimit: 60)
    #expect(outcome.standardOutput == "ran\n", "\(outcome.termination): \(outcome.standardError)")
  }

  @Test("Code under test cannot see or signal the grader: its parent is the sandbox's own init")
  func cannotReachTheGrader() throws {
    let folder = try TemporaryFolder.shared.makeFolder("sandbox-test")
    let outcome = try inSandbox(
      "echo parent=$PPID; kill -STOP \(getpid()) 2>/dev/null && echo stopped-grader; echo done",
      sharing: folder)
    #expect(outcome.standardOutput.contains("parent=1") || outcome.standardOutput.contains("parent=0"))
    #expect(!outcome.standardOutput.contains("stopped-grader"))
  }

  @Test("Folders the grader hides read as empty inside the sandbox")
  func hiddenFolders() throws {
    let secret = repository.appendingPathComponent(".build/sandbox-test-hidden-\(getpid())")
    try FileManager.default.createDirectory(at: secret, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: secret) }
    try "broken version".write(
      to: secret.appendingPathComponent("v1.mutation"), atomically: true, encoding: .utf8)
    var sandbox = try #require(Sandbox.current)
    sandbox.hidden = [secret.path]
    let folder = try TemporaryFolder.shared.makeFolder("sandbox-test")
    let outcome = try sandbox.run(
      TestLauncher.Command(
        executable: "/bin/sh", arguments: ["-c", "ls -A \(secret.path); echo end"], environment: [:]),
      shared: folder, timeLimit: 60)
    #expect(outcome.standardOutput == "end\n")
  }

  @Test("A runaway process count is bounded")
  func processLimit() throws {
    let folder = try TemporaryFolder.shared.makeFolder("sandbox-test")
    // A small limit: the count is per user, and other sandboxes may run now.
    var sandbox = try #require(Sandbox.current)
    sandbox.limits.processes = 30
    // The shell gives up at the first fork that fails; count what started.
    _ = try sandbox.run(
      TestLauncher.Command(
        executable: "/bin/sh",
        arguments: [
          "-c", "i=0; while [ $i -lt 200 ]; do sleep 20 & echo >> \(folder.path)/started; i=$((i+1)); done",
        ],
        environment: [:]),
      shared: folder, timeLimit: 60)
    let text = (try? String(contentsOf: folder.appendingPathComponent("started"), encoding: .utf8)) ?? ""
    let started = text.filter { $0 == "\n" }.count
    #expect(started < 200, "\(started) processes started")
    // As root the sandbox runs as nobody, whose count starts near zero.
    if getuid() == 0 { #expect(started <= 30, "\(started) processes started") }
  }

  @Test("Writing a file past the size limit ends the process with SIGXFSZ")
  func fileSizeLimit() throws {
    let folder = try TemporaryFolder.shared.makeFolder("sandbox-test")
    let size = Sandbox.current!.limits.fileSize
    let outcome = try inSandbox("head -c \(size + 1024) /dev/zero > /tmp/big", sharing: folder)
    #expect(outcome.termination == .signaled(SIGXFSZ))
  }

  @Test("Everything in the sandbox dies with it: nothing survives a time limit")
  func nothingSurvives() throws {
    let folder = try TemporaryFolder.shared.makeFolder("sandbox-test")
    // A child in a new session that ignores SIGTERM escapes a process-group
    // kill. Without `setsid` the shell exits at once, and the check fails
    // instead of timing out with nothing escaping.
    let outcome = try inSandbox(
      "command -v setsid >/dev/null || exit 3; setsid sh -c 'trap \"\" TERM; sleep 60' & sleep 60",
      sharing: folder, timeLimit: 2)
    #expect(outcome.timedOut)
    // Its PID inside the sandbox means nothing outside: look for any of its
    // sleeps left, for up to 10 s (a killed process may wait for the CPU).
    let gone = try eventually(within: 10) { try processes { $0.hasPrefix("sleep 60") }.isEmpty }
    let left = try processes { $0.hasPrefix("sleep 60") }
    #expect(gone, "still running: \(left)")
  }
}

@Suite("Giving a build folder to the sandbox's user")
struct OwnershipTests {
  /// The owner of the file at `path`, never of what a link points to.
  private func owner(of path: String) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: path)[.ownerAccountID] as? NSNumber).intValue
  }

  @Test(
    "Every file is given, files that vanish during the walk are passed, and a link's target outside is left alone"
  )
  func vanishingFilesAndLinks() throws {
    let folder = try TemporaryFolder.shared.makeFolder("ownership")
    let scratch = folder.appendingPathComponent("scratch")
    let outside = folder.appendingPathComponent("outside")
    let files = FileManager.default
    for sub in ["debug/variants/v1", "debug/variants/v2/vanishing-folder/deeper", "home"] {
      try files.createDirectory(at: scratch.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    try files.createDirectory(at: outside, withIntermediateDirectories: true)
    for file in [
      "debug/variants/v1/Objects.LinkFileList", "debug/variants/v1/.dat.nosync68CB.vanishing-file",
      "debug/variants/v2/vanishing-folder/deeper/object.o", "home/kept",
    ] {
      try Data("x".utf8).write(to: scratch.appendingPathComponent(file))
    }
    try Data("outside".utf8).write(to: outside.appendingPathComponent("target"))
    try files.createSymbolicLink(
      atPath: scratch.appendingPathComponent("link").path, withDestinationPath: outside.path + "/target")
    try files.createSymbolicLink(
      atPath: scratch.appendingPathComponent("debug/linked-folder").path, withDestinationPath: outside.path)
    let before = try owner(of: outside.path + "/target")
    let target =
      getuid() == 0
      ? Ownership.Owner(user: uid_t(Sandbox.nobody), group: gid_t(Sandbox.nobody))
      : Ownership.Owner(user: getuid(), group: getgid())

    var vanished: [String] = []
    // As a linker renames its temporary file away while the folder is walked.
    try Ownership.give(scratch, to: target) { path in
      if path.hasSuffix("vanishing-file") || path.hasSuffix("vanishing-folder") {
        try? files.removeItem(atPath: path)
        vanished.append(URL(fileURLWithPath: path).lastPathComponent)
      }
    }

    #expect(vanished.sorted() == [".dat.nosync68CB.vanishing-file", "vanishing-folder"])
    var given = [scratch.path]
    for case let path as String in files.enumerator(atPath: scratch.path) ?? NSEnumerator() {
      given.append(scratch.path + "/" + path)
    }
    #expect(given.count == 10, "\(given)")
    for path in given {
      #expect(try owner(of: path) == Int(target.user), "\(path)")
    }
    #expect(try owner(of: outside.path + "/target") == before)
    #expect(try owner(of: outside.path) == before)
  }

  @Test("Giving a folder again writes only to the files that are not the user's yet")
  func givenFilesAreLeftAlone() throws {
    let scratch = try TemporaryFolder.shared.makeFolder("ownership")
    let kept = scratch.appendingPathComponent("kept.o")
    try Data("x".utf8).write(to: kept)
    let target =
      getuid() == 0
      ? Ownership.Owner(user: uid_t(Sandbox.nobody), group: gid_t(Sandbox.nobody))
      : Ownership.Owner(user: getuid(), group: getgid())
    try Ownership.give(scratch, to: target)
    func changed(_ url: URL) throws -> timespec {
      var status = stat()
      try #require(lstat(url.path, &status) == 0)
      #if canImport(Darwin)
        return status.st_ctimespec
      #else
        return status.st_ctim
      #endif
    }
    let before = try changed(kept)
    // Until the clock a change of owner would stamp (Linux's coarse one)
    // has moved past it: a few milliseconds at most.
    var now = timespec()
    let deadline = ContinuousClock.now + .seconds(1)
    repeat {
      #if os(Linux)
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
      #else
        clock_gettime(CLOCK_REALTIME, &now)
      #endif
    } while (now.tv_sec, now.tv_nsec) <= (before.tv_sec, before.tv_nsec) && ContinuousClock.now < deadline
    try #require(ContinuousClock.now < deadline, "the clock never passed the file's change time")
    let added = scratch.appendingPathComponent("added.o")
    try Data("y".utf8).write(to: added)
    try Ownership.give(scratch, to: target)
    let after = try changed(kept)
    #expect((after.tv_sec, after.tv_nsec) == (before.tv_sec, before.tv_nsec), "its owner was changed again")
    #expect(try owner(of: added.path) == Int(target.user))
  }
}
