import WorkshopCore

/// The course maintainer's subcommands: `verify` checks the course, `dev`
/// runs a maintainer's task. `workshop-instructor` runs them beside the
/// learner's and the instructor's:
///
/// ```swift
/// let table = SubcommandTable(LearnerCommands.all + InstructorCommands.all + MaintainerCommands.all)
/// let status = Workshop(subcommands: table).run(["verify", "--fixes", "06"])
/// ```
package enum MaintainerCommands {
  /// The subcommands, in the order help lists them.
  package static let all: [any Subcommand.Type] = [VerifyCommand.self, DevCommand.self]
}
