import Foundation
import WorkshopCore
import WorkshopLearner

// Ctrl-C or SIGTERM ends every process the runner started and removes its
// temporary folder; so does a normal exit.
Interrupts.install()
let status = Workshop(subcommands: LearnerCommands.table).run(Array(CommandLine.arguments.dropFirst()))
Interrupts.waitIfStopping()
TemporaryFolder.shared.remove()
exit(status)
