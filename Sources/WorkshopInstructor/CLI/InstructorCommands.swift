import Foundation
import WorkshopCore

/// The instructor's commands, for `Workshop.instructor` (WorkshopCore): `verify` checks
/// the course, `grade` grades a class, `dev` runs a maintainer's task. `workshop-instructor` is the learner's
/// runner with these added:
///
/// ```swift
/// let status = Workshop(instructor: InstructorCommands.run).run(["verify", "--fixes", "06"])
/// ```
public enum InstructorCommands {
  /// Runs `verify`, `grade` or `dev` in `workspace`; any other command is the
  /// learner runner's, which never hands it here.
  public static let run: Workshop.Instructor = { command, workspace, workshop in
    switch command {
    case .verify(let repeatCount, let fixesOf, let options):
      return workshop.verify(workspace, repeatCount: repeatCount, fixesOf: fixesOf, options)
    case .grade(let submissions, let options):
      return workshop.grade(workspace, submissions: submissions, options)
    case .dev(let task):
      return workshop.dev(task, workspace)
    default:
      workshop.console.err("error: only `verify`, `grade` and `dev` are the instructor's commands.")
      return Workshop.ExitCode.usage
    }
  }
}
