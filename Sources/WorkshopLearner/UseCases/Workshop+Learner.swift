import Foundation
import WorkshopCore

/// `reset` and `solution`: starting a chapter again, and comparing with the reference.
extension Workshop {
  func reset(_ chapters: [Curriculum.Chapter], _ workspace: Workspace) -> Int32 {
    let starters = Starters(workspace: workspace)
    var failed = false
    for chapter in chapters {
      let label = language("Chapter \(chapter.paddedNumber)", "第 \(chapter.paddedNumber) 章")
      if !chapter.starter.isEmpty, starters.current(chapter) == chapter.starter {
        if chapters.count == 1 {
          console.out(
            language(
              "\(label) is already as the course shipped it: nothing to reset.", "\(label)已经是课程发布时的样子：无需重置。"))
        }
        continue
      }
      do {
        let done = try starters.reset(chapter)
        var line = language("\(label) is back to its starter code.", "\(label)已恢复为初始代码。")
        if let backup = done.backup {
          let folder = style.cyan(path(backup, in: workspace) + "/")
          line += language(" Your files are in \(folder).", "你的文件在 \(folder)。")
        }
        console.out(line)
        if !done.removed.isEmpty {
          let names = done.removed.joined(separator: ", ")
          console.out(
            language(
              "  Files the course did not ship were moved there too: \(names).", "  课程没有发布的文件也移到了那里：\(names)。"
            ))
        }
        if let backup = done.backup {
          let folder = path(workspace.url(workspace.codeFolder(chapter, .chapters)), in: workspace)
          console.out(
            language("  To put yours back: ", "  要放回你的文件：")
              + style.command("cp -R \(path(backup, in: workspace))/. \(folder)/"))
        }
      } catch {
        failed = true
        console.err("error: \(label)" + language(": ", "：") + "\(error)")
      }
    }
    guard !failed else { return ExitCode.failure }
    if chapters.count == 1, let chapter = chapters.first {
      console.out(
        language("Run ", "运行 ") + style.command("swift run workshop check \(chapter.paddedNumber)")
          + language(" to see where it starts.", " 看看从哪里开始。"))
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
        let number = chapter.paddedNumber
        console.out(
          report.state == .doesNotCompile
            ? language("Chapter \(number) is not done yet: it does not compile.", "第 \(number) 章还没完成：它编译失败。")
            : language(
              "Chapter \(number) is not done yet: \(left) of \(report.total) checks still fail.",
              "第 \(number) 章还没完成：\(report.total) 项检查里还有 \(left) 项失败。"))
        console.out(
          language("Try the next hint first: ", "先试试下一条提示：")
            + style.command("swift run workshop hint \(chapter.paddedNumber)")
            + language(". To see the solution anyway: ", "。仍想看答案：")
            + style.command("swift run workshop solution \(chapter.paddedNumber) --force")
            + language(".", "。"))
        return ExitCode.failure
      }
    }
    let mine = workspace.codeFolder(chapter, .chapters)
    let reference = workspace.codeFolder(chapter, .solutions)
    console.out(
      style.bold(
        language("Chapter \(chapter.paddedNumber) · ", "第 \(chapter.paddedNumber) 章 · ")
          + CourseText(workspace: workspace, language: language).title(chapter))
        + style.dim(language(" · your code (-) and the reference solution (+)", " · 你的代码（-）与参考答案（+）")))
    for name in chapter.files {
      let yours = workspace.url(mine + "/" + name)
      let theirs = workspace.url(reference + "/" + name)
      console.out("")
      guard let diff = try? Subprocess.run("diff", ["-u", yours.path, theirs.path]) else {
        console.out((try? String(contentsOf: theirs, encoding: .utf8)) ?? "")
        continue
      }
      if diff.termination == .exited(0) {
        console.out(
          style.dim(path(yours, in: workspace) + language(": the same as the reference.", "：与参考答案相同。")))
        continue
      }
      for line in diff.standardOutput.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("---") {
          console.out(style.bold(language("--- yours: ", "--- 你的：") + path(yours, in: workspace)))
        } else if line.hasPrefix("+++") {
          console.out(style.bold(language("+++ reference: ", "+++ 参考答案：") + path(theirs, in: workspace)))
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
      language("The comments in the reference explain each fix. Next: run ", "参考答案里的注释解释了每一处修正。接下来：运行 ")
        + style.command("swift run workshop") + language(" to see what is next.", " 看下一步做什么。"))
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
