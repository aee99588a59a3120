import Foundation
import WorkshopCore

/// `workshop dev <task>`: the course maintainer's tasks. One so far:
/// `package` writes Package.swift's chapter list (see ``PackageManifest``).
struct DevCommand: Subcommand, Equatable {
  static let configuration = SubcommandConfiguration(
    name: "dev", summary: "The course maintainer's tasks.",
    discussion: """
      'dev package' writes the chapter list in Package.swift from
      curriculum.json, after a change to its chapters: commit both. Nothing
      else rewrites Package.swift, and 'verify' fails while the two disagree.
      Runs in workshop-instructor, which SwiftPM builds on first use.
      """,
    argument: .init(name: "task", help: "'package': write Package.swift's chapter list."))

  /// The tasks it knows.
  enum Task: String, CaseIterable, Sendable {
    /// Write Package.swift's chapter list from curriculum.json.
    case package
  }

  var task: Task

  init(task: Task) { self.task = task }

  init(parsing arguments: ParsedArguments) throws {
    let name = try arguments.required(example: "package")
    guard let task = Task(rawValue: name) else {
      let tasks = Task.allCases.map(\.rawValue).joined(separator: ", ")
      throw arguments.error("unknown task '\(name)' for 'dev'; the tasks are: \(tasks)")
    }
    self.task = task
  }

  func run(_ workshop: Workshop, in workspace: Workspace) -> Int32 {
    switch task {
    case .package: writePackageChapters(workshop, workspace)
    }
  }

  private func writePackageChapters(_ workshop: Workshop, _ workspace: Workspace) -> Int32 {
    let url = workspace.url(PackageManifest.fileName)
    do {
      let manifest = try PackageManifest(contentsOf: url)
      guard !manifest.isCurrent(for: workspace.curriculum) else {
        workshop.console.out("Package.swift already lists the chapters as curriculum.json does.")
        return Workshop.ExitCode.success
      }
      try manifest.updated(for: workspace.curriculum).text.write(to: url, atomically: true, encoding: .utf8)
      workshop.console.out(
        "Wrote Package.swift's chapter list from curriculum.json (\(workspace.curriculum.chapters.count)"
          + " chapters). Commit Package.swift with curriculum.json.")
      return Workshop.ExitCode.success
    } catch {
      workshop.console.err("error: cannot write Package.swift's chapter list: \(error)")
      return Workshop.ExitCode.failure
    }
  }
}
