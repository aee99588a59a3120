import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor

@Suite("Command line parsing")
struct CommandTests {
  @Test("No arguments means progress with default options")
  func defaultIsProgress() throws {
    #expect(try Command.parse([]) == .progress(.init()))
    #expect(try Command.parse(["progress"]) == .progress(.init()))
  }

  @Test("check takes a chapter and the grading options")
  func check() throws {
    #expect(try Command.parse(["check", "04"]) == .check(chapter: "04", .init()))
    #expect(
      try Command.parse(["check", "4", "--solutions", "--timeout", "10"])
        == .check(chapter: "4", .init(solutions: true, timeLimit: 10)))
    #expect(
      try Command.parse(["check", "--timeout=5", "DebouncedSearch"])
        == .check(chapter: "DebouncedSearch", .init(timeLimit: 5)))
    var timeline = Command.Options()
    timeline.timeline = true
    #expect(try Command.parse(["check", "04", "--timeline"]) == .check(chapter: "04", timeline))
  }

  @Test("hint takes a chapter and --reset")
  func hint() throws {
    #expect(try Command.parse(["hint", "06"]) == .hint(chapter: "06", reset: false))
    #expect(try Command.parse(["hint", "06", "--reset"]) == .hint(chapter: "06", reset: true))
  }

  @Test("check, watch, hint and solution without a chapter mean the chapter the learner is on")
  func currentChapter() throws {
    #expect(try Command.parse(["check"]) == .check(chapter: nil, .init()))
    #expect(try Command.parse(["watch"]) == .watch(chapter: nil, .init()))
    #expect(
      try Command.parse(["watch", "04", "--timeout", "5"]) == .watch(chapter: "04", .init(timeLimit: 5)))
    #expect(try Command.parse(["hint"]) == .hint(chapter: nil, reset: false))
    #expect(try Command.parse(["solution"]) == .solution(chapter: nil, force: false))
    #expect(try Command.parse(["solution", "04", "--force"]) == .solution(chapter: "04", force: true))
  }

  @Test("reset takes a chapter or --all")
  func reset() throws {
    #expect(try Command.parse(["reset", "04"]) == .reset(chapter: "04", all: false))
    #expect(try Command.parse(["reset", "--all"]) == .reset(chapter: nil, all: true))
  }

  @Test("verify takes --repeat")
  func verify() throws {
    #expect(try Command.parse(["verify"]) == .verify(repeatCount: 1, fixesOf: nil, .init()))
    #expect(
      try Command.parse(["verify", "--repeat", "50"]) == .verify(repeatCount: 50, fixesOf: nil, .init()))
    #expect(
      try Command.parse(["verify", "--fixes", "06"]) == .verify(repeatCount: 1, fixesOf: "06", .init()))
  }

  @Test("grade takes any number of submissions and its own options")
  func grade() throws {
    #expect(
      try Command.parse(["grade", "a", "b.zip", "c/"]) == .grade(submissions: ["a", "b.zip", "c/"], .init()))
    #expect(
      try Command.parse([
        "grade", "a", "--jobs", "3", "--report-dir", "out", "--timeout", "10", "--unsandboxed",
      ])
        == .grade(
          submissions: ["a"], .init(reportDirectory: "out", jobs: 3, unsandboxed: true, timeLimit: 10)))
    #expect(throws: UsageError.self) { try Command.parse(["grade", "a", "--jobs", "65"]) }
    #expect(throws: UsageError.self) { try Command.parse(["grade", "a", "--solutions"]) }
    #expect(throws: UsageError.self) { try Command.parse(["check", "04", "--unsandboxed"]) }
    #expect(throws: UsageError.self) { try Command.parse(["grade", "a", "--report-dir", " "]) }
  }

  @Test("--help and --version win over everything else")
  func helpAndVersion() throws {
    #expect(try Command.parse(["--help"]) == .help(nil))
    #expect(try Command.parse(["check", "-h"]) == .help("check"))
    #expect(try Command.parse(["help", "verify"]) == .help("verify"))
    #expect(try Command.parse(["--version"]) == .version)
  }

  @Test(
    "Bad command lines are usage errors with a useful message",
    arguments: [
      (["chek", "04"], "unknown subcommand 'chek'. Did you mean 'check'?"),
      (["04"], "unknown subcommand '04'. Did you mean 'check 04'?"),
      (["reset"], "'reset' needs a chapter, for example 'reset 04'"),
      (["reset", "04", "--all"], "give a chapter or '--all', not both ('04')"),
      (["solution", "04", "--all"], "'--all' does not apply to 'solution' (only to 'reset')"),
      (["check", "04", "06"], "unexpected argument '06'"),
      (["--bogus"], "unknown option '--bogus'"),
      (["verify", "--repeat", "0"], "'--repeat' takes a whole number from 1 to 1000, not '0'"),
      (["verify", "--repeat"], "missing value for '--repeat'"),
      (
        ["check", "04", "--timeout", "soon"],
        "'--timeout' takes a number of seconds from 1 to 3600, not 'soon'"
      ),
      (
        ["hint", "04", "--solutions"],
        "'--solutions' does not apply to 'hint' (only to 'progress', 'check' and 'watch')"
      ),
      (["progress", "--repeat", "3"], "'--repeat' does not apply to 'progress' (only to 'verify')"),
      (["watch", "--timeline"], "'--timeline' does not apply to 'watch' (only to 'check')"),
      (["check", "04", "--timeline=yes"], "'--timeline' takes no value"),
      (["list", "--reset"], "'--reset' does not apply to 'list' (only to 'hint')"),
      (
        ["list", "--timeout", "5"],
        "'--timeout' does not apply to 'list' (only to 'progress', 'check', 'watch', 'verify' and 'grade')"
      ),
      (
        ["check", "04", "--timeout", "0.001"],
        "'--timeout' takes a number of seconds from 1 to 3600, not '0.001'"
      ),
      (["check", "04", "--timeout", "-1"], "'--timeout' takes a number of seconds from 1 to 3600, not '-1'"),
      (["--solutions=no"], "'--solutions' takes no value"),
      (["check", "04", "--timeout"], "missing value for '--timeout'"),
    ])
  func usageErrors(arguments: [String], message: String) {
    #expect(throws: UsageError.self) { try Command.parse(arguments) }
    do {
      _ = try Command.parse(arguments)
    } catch let error as UsageError {
      #expect(error.message == message)
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }

  @Test("Help, usage lines and defaults come from the same table as parsing")
  func derivedHelp() throws {
    #expect(try Command.parse([]) == .progress(.init(timeLimit: Grader.defaultTimeLimit)))
    let check = try #require(Help.text(for: "check"))
    #expect(check.contains("USAGE: workshop check [<chapter>] [--solutions] [--timeout <seconds>]"))
    #expect(check.contains("(default: \(Int(Grader.defaultTimeLimit)))"))
    #expect(Help.usage(for: "hint") == "Usage: workshop hint [<chapter>] [--reset] [--exercise <name>]")
    #expect(
      Help.usage(for: "verify")
        == "Usage: workshop verify [--repeat <count>] [--fixes <chapter>] [--timeout <seconds>] [--record-starters]"
    )
    #expect(Help.overview.contains("progress (default)"))
  }

  @Test("Every subcommand has help, and unknown topics have none")
  func helpTexts() {
    for subcommand in Command.subcommands {
      #expect(Help.text(for: subcommand) != nil, "no help for \(subcommand)")
    }
    #expect(Help.text(for: "nope") == nil)
    let overview = Help.text(for: nil) ?? ""
    for heading in ["OVERVIEW:", "USAGE:", "OPTIONS:", "SUBCOMMANDS:"] {
      #expect(overview.contains(heading))
    }
  }
}

@Suite("Command line parsing: usage lines")
struct UsageLineTests {
  @Test("An option error while typing a subcommand shows that subcommand's usage")
  func optionErrorNamesSubcommand() {
    do {
      _ = try Command.parse(["check", "4", "--timeout", "abc"])
      Issue.record("accepted a bad timeout")
    } catch let error as UsageError {
      #expect(error.subcommand == "check")
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }

  @Test(
    "verify and grade are handed to workshop-instructor in the same course, with their arguments as given")
  func instructorForwarding() {
    let root = URL(fileURLWithPath: "/courses/my workshop")
    #expect(
      InstructorForwarding.commandLine(["grade", "a b", "--jobs", "2"], root: root)
        == [
          "swift", "run", "--package-path", "/courses/my workshop", "workshop-instructor", "grade", "a b",
          "--jobs", "2",
        ])
    // The product it names is one the manifest declares.
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let manifest =
      (try? String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
    #expect(manifest.contains(".executable(name: \"\(InstructorForwarding.product)\""))
  }

  @Test(
    "SwiftPM's temporary folders from a hand-off are in the build folder, removed by the instructor's runner, which gets the caller's TMPDIR back"
  )
  func handOffTemporaryFolder() {
    let root = URL(fileURLWithPath: "/courses/my workshop")
    let folder = InstructorForwarding.handOffFolder(root: root, process: 42)
    #expect(folder.path == "/courses/my workshop/.build/workshop-handoff/42")
    for caller in ["/var/tmp/mine", nil] {
      let environment = InstructorForwarding.handOffEnvironment(folder: folder, callerTemporary: caller)
      #expect(environment["TMPDIR"] == folder.path)
      let undo = InstructorForwarding.undoHandOff(environment)
      #expect(undo?.remove == folder.path)
      #expect(undo?.temporary == caller)
    }
    // Not handed off, or handed a folder that is not a hand-off's: nothing is removed.
    #expect(InstructorForwarding.undoHandOff(["TMPDIR": "/tmp"]) == nil)
    #expect(
      InstructorForwarding.undoHandOff([
        InstructorForwarding.handOffVariable: "/home/me", "TMPDIR": "/home/me",
      ])
        == nil)
  }
}
