import Foundation
import WorkshopCore
import WorkshopInstructor
import WorkshopLearner
import WorkshopMaintainer

// The learner's runner with the instructor's commands, `verify` and `grade`:
// `swift run workshop verify` hands its command here (see
// `InstructorForwarding`). Ctrl-C or SIGTERM ends every process it started
// and removes its temporary folder; so does a normal exit.
InstructorForwarding.finishHandOff()
Interrupts.install()
let status = Workshop(
  subcommands: SubcommandTable(
    LearnerCommands.all + MaintainerCommands.all + InstructorCommands.all,
    chinese: LearnerCommands.chinese.merging(InstructorCommands.chinese) { $1 })
).run(
  Array(CommandLine.arguments.dropFirst()))
Interrupts.waitIfStopping()
TemporaryFolder.shared.remove()
exit(status)
