import Foundation
import WorkshopCore

/// `workshop verify`: checks the course (see ``Verifier``).
extension Workshop {
  func verify(_ workspace: Workspace, _ command: VerifyCommand) -> Int32 {
    var workspace = workspace
    if command.recordStarters {
      do {
        try Starters(workspace: workspace).record()
        workspace = try Workspace.locate(from: workspace.root)
        console.out("Recorded Chapters/ as the shipped starters in curriculum.json; commit it.")
      } catch {
        console.err("error: cannot record the starters: \(error)")
        return ExitCode.failure
      }
    }
    var only: [Curriculum.Chapter]?
    if command.fixesOf == "all" {
      only = workspace.curriculum.chapters
    } else if let query = command.fixesOf {
      guard let chapter = resolve(query, in: workspace) else { return ExitCode.usage }
      only = [chapter]
    }
    let status = console.status
    let verifier = Verifier(
      workspace: workspace, style: style, timeLimit: command.timeLimit, repeatCount: command.repeatCount,
      onlyFixesOf: only,
      write: { line in
        self.console.clearStatus()
        self.console.out(line)
      },
      progress: status)
    let (_, failed) = verifier.run()
    console.clearStatus()
    return failed == 0 ? ExitCode.success : ExitCode.failure
  }

}
