import WorkshopCore

/// The learner's subcommands: `workshop` runs these, and hands the
/// instructor's and the maintainer's to `workshop-instructor` (see
/// ``InstructorForwarding``), so that a learner's first run compiles none
/// of their code.
///
///     let status = Workshop(subcommands: LearnerCommands.table).run(["check", "04"])
package enum LearnerCommands {
  /// The subcommands, in the order help lists them.
  package static let all: [any Subcommand.Type] = [
    ProgressCommand.self, CheckCommand.self, WatchCommand.self, HintCommand.self, SolutionCommand.self,
    ResetCommand.self, ListCommand.self,
  ]

  /// The learner's runner's table.
  package static let table = SubcommandTable(all, handedOff: InstructorForwarding.subcommands)
}
