import Foundation
import WorkshopCore

/// `workshop dev`: the course maintainer's tasks.
extension Workshop {
  func dev(_ task: String, _ workspace: Workspace) -> Int32 {
    // `package`, the one task (``Command/devTasks``).
    let url = workspace.url(PackageManifest.fileName)
    do {
      let manifest = try PackageManifest(contentsOf: url)
      guard !manifest.isCurrent(for: workspace.curriculum) else {
        console.out("Package.swift already lists the chapters as curriculum.json does.")
        return ExitCode.success
      }
      try manifest.updated(for: workspace.curriculum).text.write(to: url, atomically: true, encoding: .utf8)
      console.out(
        "Wrote Package.swift's chapter list from curriculum.json (\(workspace.curriculum.chapters.count)"
          + " chapters). Commit Package.swift with curriculum.json.")
      return ExitCode.success
    } catch {
      console.err("error: cannot write Package.swift's chapter list: \(error)")
      return ExitCode.failure
    }
  }
}
