import CheckTranscript
import Foundation

/// One test process: the checks that match a filter, run from a build with a
/// hard time limit, their events read from a FIFO while they are written.
///
/// Reading as the events arrive means that rewriting the stream later, at
/// exit for example, changes nothing the grader has read.
package struct TestRun: Sendable {
  /// What one test process did.
  package struct Outcome: Sendable {
    var summary: EventStream.Summary
    var termination: Termination?
    var timedOut: Bool
    var standardError: String
    /// Why the process could not start, if it could not.
    var startError: String?
    /// What ThreadSanitizer reported, in a sanitized build.
    var races: [RaceReport] = []
    /// Set when the run was stopped because its checks, which beat
    /// (``Heartbeat``), had said nothing for that many seconds: stuck, not
    /// out of time.
    var stoppedQuiet: Double?

    /// Whether the run finished: it reported its own end, then exited as
    /// Swift Testing does (0 when every check passed, 1 when one failed), or
    /// as ThreadSanitizer does after a report it wrote.
    var isComplete: Bool {
      summary.runEnded && !summary.isTampered && !timedOut
        && (termination == .exited(0) || termination == .exited(1)
          || (termination == .exited(RaceReport.exitCode) && !races.isEmpty))
    }

    /// Why the run did not finish, in words, with the runtime's own message.
    var cause: String? {
      if isComplete { return nil }
      if let startError { return "the checks could not start: \(startError)" }
      if timedOut { return nil }
      if summary.isTampered {
        return
          "something other than Swift Testing wrote to the checks' event stream, so no result of this run counts"
      }
      let reasons = TestRun.crashReason(in: standardError)
      let what: String
      switch termination {
      case .signaled(let signal)?: what = "the process was killed by \(signalName(signal))"
      case .exited(RaceReport.exitCode)? where summary.runEnded && races.isEmpty:
        what = "ThreadSanitizer reported a problem, but its report is gone: something deleted it"
      case .exited(let code)?: what = "the process exited with status \(code) before its checks finished"
      case nil: what = "the process never started"
      }
      return ([what] + reasons).joined(separator: "\n")
    }

    /// What the Swift runtime said as the process died, a line each; none
    /// for a run that finished.
    var runtimeSaid: [String] {
      isComplete ? [] : TestRun.crashReason(in: standardError)
    }
  }

  var build: Build
  var environment: [String: String]
  /// The sandbox the test process runs in; nil for none.
  var sandbox: Sandbox?

  package init(build: Build, environment: [String: String], sandbox: Sandbox? = Sandbox.current) {
    self.build = build
    self.environment = environment
    self.sandbox = sandbox
  }

  /// Runs the product with Swift Testing's `arguments`, in the sandbox if
  /// there is one, writing only in `folder`.
  private func run(
    _ arguments: [String], writingIn folder: URL, timeLimit: Double, tick: (() -> Bool)? = nil,
    seal key: [UInt8]? = nil
  ) throws -> ProcessOutcome {
    var environment = self.environment
    environment["NO_COLOR"] = "1"
    if key != nil { environment["WORKSHOP_SEALED_STREAM"] = "1" }
    if build.sanitizer == .thread {
      // In the sandbox, the logs go to its private /tmp, whose size is
      // capped, and are handed out after the run (see below).
      let log = sandbox == nil ? folder.appendingPathComponent("races").path : "/tmp/races"
      environment["TSAN_OPTIONS"] = RaceReport.options(log: log)
      // Instrumented code runs several times slower: the kit waits longer
      // before it calls a step hung. Correct code never comes near either bound.
      let bound = Double(environment["WORKSHOP_HANG_BOUND"] ?? "") ?? 1
      environment["WORKSHOP_HANG_BOUND"] = String(max(bound, 5))
      // Swift's backtracer and ThreadSanitizer fight over a crashing
      // process: it can hang or die another way. The crash itself is enough.
      environment["SWIFT_BACKTRACE"] = "enable=no"
    } else {
      #if os(Linux)
        // Swift's backtracer names the line the crashed thread stopped at
        // (the second `resume` of a continuation), which the learner's
        // pointer shows (`RuntimeMessage.stop(in:)`). Swift Testing turns
        // it off in an exit test's process unless it is set; only the
        // crashed thread, no registers or images.
        environment["SWIFT_BACKTRACE"] = Self.backtraceSettings
      #endif
    }
    let command = build.launcher.command(
      product: build.product, arguments: arguments, environment: environment, sanitizer: build.sanitizer)
    if var sandbox {
      // ThreadSanitizer reserves terabytes of address space for its shadow
      // memory: the memory limit would stop it before it starts.
      if build.sanitizer == .thread { sandbox.limits.memory = Int.max }
      // The event folder is read-only in the sandbox (its FIFO can still be
      // written): code under test can fill no disk there. A shell, the
      // sandbox's process 1, which code under test can neither stop nor
      // kill, runs the checks without descriptor 4, then copies
      // ThreadSanitizer's logs to it: a file of the grader's, outside the
      // event folder, capped like every file the sandbox writes. Without
      // ThreadSanitizer there are no logs: nothing is copied (nor started
      // to copy them, once per run), so nothing code under test writes
      // there is ever read.
      let copyLogs = build.sanitizer == .thread ? #" cat /tmp/races.* >&4 2>/dev/null;"# : ""
      let script = #""$0" "$@" 4>&-; status=$?;"# + copyLogs + " exit $status"
      let wrapper = TestLauncher.Command(
        executable: "/bin/sh", arguments: ["-c", script, command.executable] + command.arguments,
        environment: command.environment)
      return try sandbox.run(
        wrapper, shared: folder, timeLimit: timeLimit, tick: tick, readOnly: true,
        files: [4: Self.racesFile(of: folder).path], reaching: [wrapper.executable, command.executable],
        input: key)
    }
    // Unsandboxed, a shell stands between the grader and the test process,
    // so that code signalling its parent (`getppid()`) stops or kills the
    // shell, which the grader sees end or time out, not the grader itself.
    // macOS drops DYLD_ variables when it starts a system binary such as
    // /bin/sh: they pass through under other names, and the shell sets them.
    var passed = command.environment
    var script = ""
    for key in passed.keys.sorted() where key.hasPrefix("DYLD_") {
      passed["WORKSHOP_PASS_" + key] = passed.removeValue(forKey: key)
      script += "export \(key)=\"$WORKSHOP_PASS_\(key)\"; "
    }
    script += #""$@"; exit $?"#
    var outcome = try Subprocess.run(
      "/bin/sh", ["-c", script, "sh", command.executable] + command.arguments,
      environment: passed, timeout: timeLimit, tick: tick, input: key)
    outcome.termination = outcome.termination.unwrapped
    return outcome
  }

  /// Runs the checks whose IDs match `filter` within `timeLimit` seconds.
  ///
  /// `running`, when given, is called about once a second after the first
  /// `after` seconds, with the IDs of the checks that started and have not
  /// ended yet, and the seconds since the run started: a slow run says
  /// which check it is on.
  ///
  /// With `stalled`, the run is also stopped, as if its time were up, once
  /// checks have started and the stream has said nothing for `stalled`
  /// seconds while some of them are still running: every check then waits
  /// on something that does not come, or spins.
  ///
  /// With `quiet`, the run is stopped once every check still running beats
  /// (``Heartbeat``) and the stream has said nothing for `quiet` seconds:
  /// a check that keeps moving beats twice a second, so one that went quiet
  /// is stuck (``Outcome/stoppedQuiet``). A check that does not beat (a
  /// learner's own test, a run without the kit's heartbeat) runs to
  /// `timeLimit`.
  func run(
    filter: String, timeLimit: Double, after: Double = 3, stalled: Double? = nil, quiet: Double? = nil,
    running: ((_ checks: [String], _ seconds: Int) -> Void)? = nil
  ) -> Outcome {
    var outcome = Outcome(
      summary: EventStream.Summary(), termination: nil, timedOut: false, standardError: "", startError: nil)
    let folder: URL
    let stream: EventFIFO
    do {
      folder = try TemporaryFolder.shared.makeFolder("checks")
      stream = try EventFIFO(at: folder.appendingPathComponent("events.jsonl"))
    } catch {
      outcome.startError = "\(error)"
      return outcome
    }
    let attachments = folder.appendingPathComponent("attachments")
    defer {
      stream.finish()
      try? FileManager.default.removeItem(at: folder)
    }
    // A fresh key for every process, when its entry point seals the stream:
    // then only lines sealed with it, numbered in order, are records.
    let key = build.sealsStream ? StreamSeal.makeKey() : nil
    let seal = key.map { StreamSeal(key: $0) }
    do {
      let start = ContinuousClock.now
      var said = 0
      var reader = EventStream.RecordReader(seal: seal)
      var heard = (records: 0, at: start)
      var looked = start
      var wentQuiet: Double?
      let tick: (() -> Bool)? =
        running == nil && stalled == nil && quiet == nil
        ? nil
        : {
          let now = ContinuousClock.now
          let seconds = Int((now - start).inSeconds)
          let report = running != nil && Double(seconds) >= after && seconds > said
          let watch = (stalled != nil || quiet != nil) && now - looked >= .milliseconds(250)
          guard report || watch else { return false }
          looked = now
          reader.read(stream.bytes(from: reader.consumed))
          if reader.records.count != heard.records { heard = (reader.records.count, now) }
          let summary = EventStream.summary(of: reader.records, verdicts: false)
          let pending = summary.started.subtracting(summary.ended)
          if report {
            said = seconds
            running?(pending.sorted(), seconds)
          }
          guard !pending.isEmpty else { return false }
          let silent = (now - heard.at).inSeconds
          if let stalled, silent >= stalled { return true }
          // Suites are running too: one counts as beating through its checks.
          let beats = { (id: String) in
            summary.beating.contains(id) || summary.beating.contains { $0.hasPrefix(id + "/") }
          }
          if let quiet, silent >= quiet, !summary.beating.isDisjoint(with: pending), pending.allSatisfy(beats)
          {
            wentQuiet = quiet
            return true
          }
          return false
        }
      // The kit sends each failure's verdict as an attachment. Swift Testing
      // puts one in the stream itself (this toolchain, in version 0 of the
      // stream), or saves it where `--attachments-path` says and names the
      // file. Only an unsandboxed run can save one: in the sandbox, the
      // folder is read-only, and the stream must carry it.
      var arguments = [
        "--filter", filter, "--event-stream-output-path", stream.path, "--event-stream-version", "0",
      ]
      if sandbox == nil {
        try FileManager.default.createDirectory(at: attachments, withIntermediateDirectories: true)
        arguments += ["--attachments-path", attachments.path]
      }
      let process = try run(arguments, writingIn: folder, timeLimit: timeLimit, tick: tick, seal: key)
      outcome.termination = process.termination
      outcome.timedOut = process.timedOut
      outcome.stoppedQuiet = process.timedOut ? wentQuiet : nil
      outcome.standardError = process.standardError
    } catch {
      outcome.startError = "\(error)"
    }
    var reader = EventStream.RecordReader(seal: seal)
    reader.read(stream.data, final: true)
    outcome.summary = EventStream.summary(
      of: EventStream.readingAttachments(reader.records, savedIn: attachments))
    if reader.isForged { outcome.summary.isTampered = true }
    if stream.overflowed.load(ordering: .acquiring) { outcome.summary.isTampered = true }
    if build.sanitizer == .thread {
      if sandbox != nil {
        // Every process's log (`races.<pid>`: the checks' and any exit
        // test's), one after the other, as the sandbox's shell handed them out.
        let file = Self.racesFile(of: folder)
        if let text = Self.raceLog(file) {
          outcome.races += RaceReport.parse(text)
        } else if FileStatus(file.path) != nil {
          outcome.summary.isTampered = true
        }
      } else {
        // One log per process (`races.<pid>`): the checks' and any exit test's.
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in logs.sorted() where name.hasPrefix("races.") {
          guard let text = Self.raceLog(folder.appendingPathComponent(name)) else {
            outcome.summary.isTampered = true
            continue
          }
          outcome.races += RaceReport.parse(text)
        }
      }
    }
    try? FileManager.default.removeItem(at: Self.racesFile(of: folder))
    return outcome
  }

  /// A ThreadSanitizer log's text: learner output, so read only from a
  /// regular file (never through a link) of at most 16 MiB, and decoded
  /// leniently; nil for anything else, which voids the run: a log no
  /// ThreadSanitizer writes could hide the race it reported.
  /// `SWIFT_BACKTRACE` for a plain run on Linux: a backtrace of the
  /// crashed thread only, in plain text, given at most 5 s.
  static let backtraceSettings =
    "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,timeout=5s"

  static func raceLog(_ file: URL) -> String? {
    guard let bytes = Files.readRegularFile(file, atMost: 16 << 20) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Where a sandboxed run's ThreadSanitizer logs are handed out: beside
  /// the event folder, never in it.
  static func racesFile(of folder: URL) -> URL {
    folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + "-races.log")
  }

  /// Lists every check the build holds, without running any: no code under
  /// test runs while the grader learns which checks to expect.
  package func listChecks() throws -> [ExpectedCheck] {
    let folder = try TemporaryFolder.shared.makeFolder("list")
    defer { try? FileManager.default.removeItem(at: folder) }
    // A FIFO, as for a run: the folder is read-only in the sandbox.
    let stream = try EventFIFO(at: folder.appendingPathComponent("tests.jsonl"))
    defer { stream.finish() }
    let outcome = try run(
      ["--list-tests", "--event-stream-output-path", stream.path, "--event-stream-version", "0"],
      writingIn: folder, timeLimit: 120)
    let text = stream.text
    let checks = EventStream.checks(in: EventStream.records(fromJSONLines: text))
    guard outcome.succeeded, !checks.isEmpty else {
      throw GradingError(
        description: "cannot list the checks (\(outcome.termination)):\n"
          + outcome.standardError.split(separator: "\n").prefix(5).joined(separator: "\n"))
    }
    return checks
  }

  /// The lines of a crashed process's standard error that say why it died.
  static func crashReason(in standardError: String) -> [String] {
    RuntimeMessage.lines(in: standardError)
  }
}
