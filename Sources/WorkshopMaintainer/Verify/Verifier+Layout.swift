import Foundation
import WorkshopCore

/// `verify`'s first step: the course's layout.
extension Verifier {
  /// Every chapter has its starter, README, solution (path for path),
  /// checks and slides, hints and TODO markers; Package.swift lists the
  /// chapters curriculum.json does, and curriculum.json records the starters
  /// as shipped.
  func checkLayout(_ tally: Tally) {
    let files = FileManager.default
    do {
      let manifest = try PackageManifest(contentsOf: workspace.url(PackageManifest.fileName))
      let current = manifest.isCurrent(for: workspace.curriculum)
      tally.item(
        current, "Package.swift lists the chapters as curriculum.json does",
        current
          ? []
          : [
            manifest.listedChapters == nil
              ? "its chapter list's marker lines are missing"
              : "its chapter list is stale",
            "run 'swift run workshop-instructor dev package' and commit Package.swift",
          ])
    } catch {
      tally.item(false, "Package.swift can be read", ["\(error)"])
    }
    let unrecorded = Starters(workspace: workspace).unrecorded()
    tally.item(
      unrecorded.isEmpty, "curriculum.json records the starters as Chapters/ holds them (for reset)",
      unrecorded.isEmpty
        ? []
        : [
          "differ: " + unrecorded.map(\.paddedNumber).joined(separator: ", "),
          "if Chapters/ is what the course ships, run 'swift run workshop verify --record-starters' and commit curriculum.json",
        ])
    for chapter in workspace.curriculum.chapters {
      var problems: [String] = []
      let starterFolder = workspace.codeFolder(chapter, .chapters)
      let solutionFolder = workspace.codeFolder(chapter, .solutions)
      let starter = workspace.url(starterFolder)
      let starterSources = Files.under(starter, suffix: ".swift")
      let solutionSources = Files.under(workspace.url(solutionFolder), suffix: ".swift")
      if starterSources.isEmpty { problems.append("no Swift files in \(starterFolder)") }
      if solutionSources != starterSources {
        problems.append(
          "\(solutionFolder) does not mirror \(starterFolder): \(starterSources) vs \(solutionSources)")
      }
      for file in chapter.files where !files.fileExists(atPath: starter.appendingPathComponent(file).path) {
        problems.append("curriculum.json lists \(file), which is not in \(starterFolder)")
      }
      if !files.fileExists(atPath: starter.appendingPathComponent("README.md").path) {
        problems.append("no README.md in \(starterFolder)")
      }
      for file in starterSources {
        let text = (try? String(contentsOf: starter.appendingPathComponent(file), encoding: .utf8)) ?? ""
        if !text.contains("TODO:") {
          problems.append("\(starterFolder)/\(file) marks no place to edit with // TODO:")
        }
      }
      let component = chapter.component.map { ["Sources/" + $0] } ?? []
      for path in [workspace.checksFolder(chapter), workspace.slidesFile(chapter)] + component
      where !files.fileExists(atPath: workspace.url(path).path) {
        problems.append("no \(path)")
      }
      problems += hintProblems(chapter)
      tally.item(
        problems.isEmpty,
        "\(chapter.paddedNumber) \(chapter.title): starter, README, solution, checks, slides, hints",
        problems)
    }
    let broken = brokenLinks()
    tally.item(
      broken.isEmpty,
      "every relative link of the README, docs/, the changelog and the chapters' READMEs leads to a file",
      broken)
  }

  /// The documents each reader starts from, and every chapter's README.
  var linkedDocuments: [String] {
    ["README.md", "CHANGELOG.md"]
      + Files.under(workspace.url("docs"), suffix: ".md").map { "docs/" + $0 }
      + workspace.curriculum.chapters.map { workspace.codeFolder($0, .chapters) + "/README.md" }
  }

  /// `file:line: target` for every Markdown link or image of
  /// ``linkedDocuments`` whose relative target (its `#anchor` left out) is
  /// no file or folder of the course.
  func brokenLinks() -> [String] {
    var broken: [String] = []
    for document in linkedDocuments {
      guard let text = try? String(contentsOf: workspace.url(document), encoding: .utf8) else { continue }
      let folder = (document as NSString).deletingLastPathComponent
      var inCode = false
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        if line.hasPrefix("```") { inCode.toggle() }
        guard !inCode else { continue }
        for match in line.matches(of: #/\]\(([^)\s]+)\)/#) {
          let target = String(match.1)
          guard !target.contains("://"), !target.hasPrefix("#"), !target.hasPrefix("mailto:") else {
            continue
          }
          let path = String(target.prefix { $0 != "#" })
          let resolved = (folder.isEmpty ? path : folder + "/" + path)
          if !FileManager.default.fileExists(atPath: workspace.url(resolved).standardized.path) {
            broken.append("\(document):\(number + 1): \(target)")
          }
        }
      }
    }
    return broken
  }
}
