import WorkshopCore

/// The instructor's and the maintainer's subcommands: `verify` checks the
/// course, `grade` grades a class, `dev` runs a maintainer's task.
/// `workshop-instructor` is the learner's runner with these added:
///
/// ```swift
/// let table = SubcommandTable(LearnerCommands.all + InstructorCommands.all)
/// let status = Workshop(subcommands: table).run(["verify", "--fixes", "06"])
/// ```
public enum InstructorCommands {
  /// The subcommands, in the order help lists them.
  public static let all: [any Subcommand.Type] = [VerifyCommand.self, GradeCommand.self, DevCommand.self]
}
