import Foundation
import WorkshopCore

// Ctrl-C or SIGTERM ends every process the runner started and removes its
// temporary folder; so does a normal exit.
Interrupts.install()
let status = Workshop().run(Array(CommandLine.arguments.dropFirst()))
Interrupts.waitIfStopping()
TemporaryFolder.shared.remove()
exit(status)
