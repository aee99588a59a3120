import Foundation
import WorkshopCore

/// `reset` and `solution`: starting a chapter again, and comparing with the reference.
extension Workshop {
  func reset(_ chapters: [Curriculum.Chapter], _ workspace: Workspace) -> Int32 {
    let starters = Starters(workspace: workspace)
    var failed = false
    for chapter in chapters {
      let label = "Chapter \(chapter.paddedNumber)"
      if !chapter.starter.isEmpty, starters.current(chapter) == chapter.starter {
        if chapters.count == 1 {
          console.out("\(label) is already as the course shipped it: nothing to reset.")
        }
        continue
      }
      do {
        let done = try starters.reset(chapter)
        var line = "\(label) is back to its starter code."
        if let backup = done.backup {
          line += " Your files are in \(style.cyan(path(backup, in: workspace) + "/"))."
        }
        console.out(line)
        if !done.removed.isEmpty {
          console.out(
            "  Files the course did not ship were moved there too: \(done.removed.joined(separator: ", ")).")
        }
        if let backup = done.backup {
          let folder = path(workspace.url(workspace.codeFolder(chapter, .chapters)), in: workspace)
          console.out(
            "  To put yours back: " + style.command("cp -R \(path(backup, in: workspace))/. \(folder)/"))
        }
      } catch {
        failed = true
        console.err("error: \(label): \(error)")
      }
    }
    guard !failed else { return ExitCode.failure }
    if chapters.count == 1, let chapter = chapters.first {
      console.out(
        "Run " + style.command("swift run workshop check \(chapter.paddedNumber)")
          + " to see where it starts.")
    }
    return ExitCode.success
  }

  func solution(_ chapter: Curriculum.Chapter, _ workspace: Workspace, force: Bool) -> Int32 {
    if !force, !Whereabouts(workspace: workspace).isKnownDone(chapter) {
      guard let report = grade(workspace, GradingOptions(), chapters: [chapter], reuse: true)?.reports.first
      else {
        return ExitCode.failure
      }
      guard report.state == .done else {
        let left = report.total - report.passed
        var line = "Chapter \(chapter.paddedNumber) is not done yet"
        switch report.state {
        case .doesNotCompile: line += ": it does not compile."
        default: line += ": \(left) of \(report.total) checks still fail."
        }
        console.out(line)
        console.out(
          "Try the next hint first: " + style.command("swift run workshop hint \(chapter.paddedNumber)")
            + ". To see the solution anyway: "
            + style.command("swift run workshop solution \(chapter.paddedNumber) --force") + ".")
        return ExitCode.failure
      }
    }
    let mine = workspace.codeFolder(chapter, .chapters)
    let reference = workspace.codeFolder(chapter, .solutions)
    console.out(
      style.bold("Chapter \(chapter.paddedNumber) · \(chapter.title)")
        + style.dim(" · your code (-) and the reference solution (+)"))
    for name in chapter.files {
      let yours = workspace.url(mine + "/" + name)
      let theirs = workspace.url(reference + "/" + name)
      console.out("")
      guard let diff = try? Subprocess.run("diff", ["-u", yours.path, theirs.path]) else {
        console.out((try? String(contentsOf: theirs, encoding: .utf8)) ?? "")
        continue
      }
      if diff.termination == .exited(0) {
        console.out(style.dim("\(path(yours, in: workspace)): the same as the reference."))
        continue
      }
      for line in diff.standardOutput.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("---") {
          console.out(style.bold("--- yours: \(path(yours, in: workspace))"))
        } else if line.hasPrefix("+++") {
          console.out(style.bold("+++ reference: \(path(theirs, in: workspace))"))
        } else if line.hasPrefix("+") {
          console.out(style.green(String(line)))
        } else if line.hasPrefix("-") {
          console.out(style.red(String(line)))
        } else if line.hasPrefix("@@") {
          console.out(style.cyan(String(line)))
        } else {
          console.out(String(line))
        }
      }
    }
    console.out("")
    console.out(
      "The comments in the reference explain each fix. Next: run " + style.command("swift run workshop")
        + " to see what is next.")
    return ExitCode.success
  }

  /// `url` as the learner would type it from where they ran the command.
  func path(_ url: URL, in workspace: Workspace) -> String {
    guard let path = Files.components(of: url, under: workspace.root) else {
      return url.standardizedFileURL.path
    }
    // From outside the workshop (Xcode's build folder): from its root.
    let here = Files.components(of: directory, under: workspace.root) ?? []
    return Files.relative(path, from: here)
  }
}
