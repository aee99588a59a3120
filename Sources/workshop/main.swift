import Foundation
import WorkshopCore

exit(Workshop().run(Array(CommandLine.arguments.dropFirst())))
