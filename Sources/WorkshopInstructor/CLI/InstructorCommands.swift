import WorkshopCore

/// The instructor's subcommand: `grade` grades a class. `workshop-instructor`
/// runs it beside the learner's and the maintainer's:
///
/// ```swift
/// let table = SubcommandTable(LearnerCommands.all + InstructorCommands.all + MaintainerCommands.all)
/// let status = Workshop(subcommands: table).run(["grade", "submissions/*"])
/// ```
package enum InstructorCommands {
  /// The subcommands, in the order help lists them.
  package static let all: [any Subcommand.Type] = [GradeCommand.self]
}
