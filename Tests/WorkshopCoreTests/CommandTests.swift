import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// The instructor's runner's table: the learner's subcommands and the
/// instructor's, all parsed here.
private let table = courseTable

/// What `arguments` ask the instructor's runner to run.
private func parsed(_ arguments: [String]) throws -> (any Subcommand)? {
  guard case .run(let command) = try table.parse(arguments) else { return nil }
  return command
}

@Suite("Command line parsing")
struct CommandTests {
  @Test("No arguments means progress with default options")
  func defaultIsProgress() throws {
    #expect(try parsed([]) as? ProgressCommand == ProgressCommand())
    #expect(try parsed(["progress"]) as? ProgressCommand == ProgressCommand())
  }

  @Test("check takes a chapter and the grading options")
  func check() throws {
    #expect(try parsed(["check", "04"]) as? CheckCommand == CheckCommand(chapter: "04"))
    #expect(
      try parsed(["check", "4", "--solutions", "--timeout", "10"]) as? CheckCommand
        == CheckCommand(chapter: "4", options: GradingOptions(solutions: true, timeLimit: 10)))
    #expect(
      try parsed(["check", "--timeout=5", "DebouncedSearch"]) as? CheckCommand
        == CheckCommand(chapter: "DebouncedSearch", options: GradingOptions(timeLimit: 5)))
    #expect(
      try parsed(["check", "04", "--timeline"]) as? CheckCommand
        == CheckCommand(chapter: "04", timeline: true))
  }

  @Test("hint takes a chapter, --reset and --exercise")
  func hint() throws {
    #expect(try parsed(["hint", "06"]) as? HintCommand == HintCommand(chapter: "06"))
    #expect(try parsed(["hint", "06", "--reset"]) as? HintCommand == HintCommand(chapter: "06", reset: true))
    #expect(
      try parsed(["hint", "13", "--exercise", "Form"]) as? HintCommand
        == HintCommand(chapter: "13", exercise: "Form"))
  }

  @Test("check, watch, hint and solution without a chapter mean the chapter the learner is on")
  func currentChapter() throws {
    #expect(try parsed(["check"]) as? CheckCommand == CheckCommand(chapter: nil))
    #expect(try parsed(["watch"]) as? WatchCommand == WatchCommand(chapter: nil))
    #expect(
      try parsed(["watch", "04", "--timeout", "5"]) as? WatchCommand
        == WatchCommand(chapter: "04", options: GradingOptions(timeLimit: 5)))
    #expect(try parsed(["hint"]) as? HintCommand == HintCommand(chapter: nil))
    #expect(try parsed(["solution"]) as? SolutionCommand == SolutionCommand(chapter: nil))
    #expect(
      try parsed(["solution", "04", "--force"]) as? SolutionCommand
        == SolutionCommand(chapter: "04", force: true))
  }

  @Test("reset takes a chapter or --all")
  func reset() throws {
    #expect(try parsed(["reset", "04"]) as? ResetCommand == ResetCommand(chapter: "04"))
    #expect(try parsed(["reset", "--all"]) as? ResetCommand == ResetCommand(chapter: nil, all: true))
  }

  @Test("verify takes --repeat, --fixes, --timeout and --record-starters")
  func verify() throws {
    #expect(try parsed(["verify"]) as? VerifyCommand == VerifyCommand())
    #expect(try parsed(["verify", "--repeat", "50"]) as? VerifyCommand == VerifyCommand(repeatCount: 50))
    #expect(try parsed(["verify", "--fixes", "06"]) as? VerifyCommand == VerifyCommand(fixesOf: "06"))
    #expect(
      try parsed(["verify", "--record-starters", "--timeout", "60"]) as? VerifyCommand
        == VerifyCommand(timeLimit: 60, recordStarters: true))
  }

  @Test("grade takes any number of submissions and its own options")
  func grade() throws {
    #expect(
      try parsed(["grade", "a", "b.zip", "c/"]) as? GradeCommand
        == GradeCommand(submissions: ["a", "b.zip", "c/"]))
    #expect(
      try parsed(["grade", "a", "--jobs", "3", "--report-dir", "out", "--timeout", "10", "--unsandboxed"])
        as? GradeCommand
        == GradeCommand(submissions: ["a"], reportDirectory: "out", jobs: 3, unsandboxed: true, timeLimit: 10)
    )
    #expect(throws: UsageError.self) { try table.parse(["grade", "a", "--jobs", "65"]) }
    #expect(throws: UsageError.self) { try table.parse(["grade", "a", "--solutions"]) }
    #expect(throws: UsageError.self) { try table.parse(["check", "04", "--unsandboxed"]) }
    #expect(throws: UsageError.self) { try table.parse(["grade", "a", "--report-dir", " "]) }
  }

  @Test("dev takes a task it knows")
  func dev() throws {
    #expect(try parsed(["dev", "package"]) as? DevCommand == DevCommand(task: .package))
  }

  @Test("--help and --version win over everything else")
  func helpAndVersion() throws {
    guard case .help(nil) = try table.parse(["--help"]) else {
      Issue.record("--help")
      return
    }
    guard case .help("check") = try table.parse(["check", "-h"]) else {
      Issue.record("check -h")
      return
    }
    guard case .help("verify") = try table.parse(["help", "verify"]) else {
      Issue.record("help verify")
      return
    }
    guard case .version = try table.parse(["check", "--version"]) else {
      Issue.record("--version")
      return
    }
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
      (["list", "04"], "unexpected argument '04'"),
      (["help", "check", "04"], "unexpected argument '04'"),
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
      (["grade"], "'grade' needs a submission, for example 'grade submissions/*'"),
      (["dev"], "'dev' needs a task, for example 'dev package'"),
      (["dev", "pack"], "unknown task 'pack' for 'dev'; the tasks are: package"),
    ])
  func usageErrors(arguments: [String], message: String) {
    #expect(throws: UsageError.self) { try table.parse(arguments) }
    do {
      _ = try table.parse(arguments)
    } catch let error as UsageError {
      #expect(error.message == message)
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }

  @Test("Help, usage lines and defaults come from the subcommands' own types")
  func derivedHelp() throws {
    #expect(
      try parsed([]) as? ProgressCommand
        == ProgressCommand(options: .init(timeLimit: Grader.defaultTimeLimit)))
    let check = try #require(table.help(for: "check"))
    #expect(
      check.contains("USAGE: workshop check [<chapter>] [--solutions] [--timeout <seconds>] [--timeline]"))
    #expect(check.contains("(default: \(Int(Grader.defaultTimeLimit)))"))
    #expect(table.usage(for: "hint") == "Usage: workshop hint [<chapter>] [--reset] [--exercise <name>]")
    #expect(
      table.usage(for: "verify")
        == "Usage: workshop verify [--repeat <count>] [--fixes <chapter>] [--timeout <seconds>] [--record-starters]"
    )
    #expect(
      table.usage(for: "grade").hasPrefix("Usage: workshop grade <submission> ... [--report-dir <dir>]"))
    #expect(table.usage(for: "reset") == "Usage: workshop reset <chapter> [--all]")
    #expect(table.overview().contains("progress (default)"))
  }

  @Test("help explains itself")
  func helpOfHelp() throws {
    let help = try #require(table.help(for: "help"))
    #expect(help.contains("USAGE: workshop help [<subcommand>]"))
    #expect(table.usage(for: "help") == "Usage: workshop help [<subcommand>]")
    guard case .help("help") = try table.parse(["help", "help"]) else {
      Issue.record("help help")
      return
    }
  }

  @Test("Every subcommand has help, and unknown topics have none")
  func helpTexts() {
    for subcommand in table.subcommands {
      #expect(table.help(for: subcommand.configuration.name) != nil, "no help for \(subcommand)")
    }
    #expect(table.help(for: "nope") == nil)
    let overview = table.help(for: nil) ?? ""
    for heading in ["OVERVIEW:", "USAGE:", "OPTIONS:", "SUBCOMMANDS:"] {
      #expect(overview.contains(heading))
    }
  }

  @Test(
    "The learner's runner hands verify, grade and dev over whole, help for them too, and names them in its help"
  )
  func learnerHandsOff() throws {
    let learner = LearnerCommands.table
    for arguments in [
      ["verify"], ["verify", "--repeat", "0"], ["grade", "a", "--jobs", "2"], ["dev", "package"],
      ["help", "grade"], ["verify", "--help"], ["--timeout", "5", "verify"], ["--repeat", "3", "verify"],
      ["--jobs", "4", "grade", "a"], ["--fixes", "06", "verify"],
    ] {
      guard case .handOff = try learner.parse(arguments) else {
        Issue.record("\(arguments) was not handed off")
        continue
      }
    }
    // A learner subcommand first: its argument, not a hand-off.
    guard case .run(let check) = try learner.parse(["check", "verify"]), check is CheckCommand else {
      Issue.record("check verify was handed off")
      return
    }
    #expect(
      learner.subcommand("verify") == nil, "The learner's runner compiles none of the instructor's code")
    #expect(learner.overview().contains("verify, grade, dev"))
    // The instructor's runner runs every subcommand the learner's hands off.
    #expect(table.handedOff.isEmpty)
    #expect(
      Set((InstructorCommands.all + MaintainerCommands.all).map { $0.configuration.name })
        == Set(InstructorForwarding.subcommands))
  }
}

@Suite("Command line parsing: usage lines")
struct UsageLineTests {
  @Test("An option error while typing a subcommand shows that subcommand's usage")
  func optionErrorNamesSubcommand() {
    do {
      _ = try table.parse(["check", "4", "--timeout", "abc"])
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
