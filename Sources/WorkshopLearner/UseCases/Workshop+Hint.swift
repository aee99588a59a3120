import Foundation
import WorkshopCore

/// `workshop hint`: one more hint, for the exercise that still fails.
extension Workshop {
  func hint(_ chapter: Curriculum.Chapter, _ workspace: Workspace, reset: Bool, exercise query: String?)
    -> Int32
  {
    let store = HintStore(directory: workspace.stateDirectory)
    var counts = store.load()
    let label = language("chapter \(chapter.paddedNumber)", "第 \(chapter.paddedNumber) 章")
    let text = CourseText(workspace: workspace, language: language)
    if reset {
      for key in counts.keys where key == chapter.folder || key.hasPrefix(chapter.folder + "/") {
        counts[key] = nil
      }
      do { try store.save(counts) } catch {
        console.err(
          language("error: cannot save hint progress: ", "error: 无法保存提示进度：") + error.localizedDescription)
        return ExitCode.failure
      }
      console.out(language("Hints for \(label) start from the first one again.", "\(label)的提示重新从第一条开始。"))
      return ExitCode.success
    }

    let exercises = chapter.allExercises
    var exercise = exercises[0]
    if exercises.count > 1 {
      if let query {
        let key = query.lowercased()
        guard
          let found = exercises.first(where: {
            $0.name == key || $0.file.lowercased() == key
              || ($0.file as NSString).deletingPathExtension.lowercased() == key
          }) ?? exercises.first(where: { $0.name.hasPrefix(key) })
        else {
          console.err(
            language(
              "error: \(label) has no exercise '\(query)'. Its exercises: ",
              "error: \(label)没有练习 '\(query)'。它的练习：")
              + exercises.map { "\($0.name) (\($0.file))" }.joined(separator: ", ") + language(".", "。"))
          return ExitCode.usage
        }
        exercise = found
      } else {
        guard let open = openExercises(chapter, workspace) else { return ExitCode.failure }
        switch open.count {
        case 0 where Whereabouts(workspace: workspace).isKnownDone(chapter):
          console.out(done(chapter))
          return ExitCode.success
        case 1:
          exercise = open[0]
        default:
          // Several fail, or none does and still the chapter is not done.
          let open = open.isEmpty ? exercises : open
          console.out(
            open.count == exercises.count
              ? language(
                "The exercises of \(label) still need work. Which one would you like a hint for?",
                "\(label)的练习都还没完成。你想要哪一个的提示？")
              : language(
                "\(open.count) exercises of \(label) still need work. Which one would you like a hint for?",
                "\(label)还有 \(open.count) 个练习没完成。你想要哪一个的提示？"))
          for candidate in open {
            console.out(
              "  "
                + style.command(
                  "swift run workshop hint \(chapter.paddedNumber) --exercise \(candidate.name)")
                + style.dim("  (\(candidate.file))"))
          }
          return ExitCode.success
        }
      }
    } else if let query, !exercises[0].name.hasPrefix(query.lowercased()), exercises[0].file != query {
      console.err(
        language(
          "error: \(label) has one exercise, \(exercises[0].file): leave out '--exercise \(query)'.",
          "error: \(label)只有一个练习 \(exercises[0].file)：去掉 '--exercise \(query)'。"))
      return ExitCode.usage
    } else if Whereabouts(workspace: workspace).isKnownDone(chapter) {
      // A done chapter needs no hint: its last grade, kept, says so.
      console.out(done(chapter))
      return ExitCode.success
    }

    let key = chapter.exercises.isEmpty ? chapter.folder : chapter.folder + "/" + exercise.name
    let hints = exercise.hints
    guard !hints.isEmpty else {
      console.out(
        language(
          "\(label.capitalizedFirst) has no hints. Read its README.md and the failing checks.",
          "\(label)没有提示。读一读它的 README.zh-Hans.md 和失败的检查。"))
      return ExitCode.success
    }
    let about = style.dim(
      " · \(label)" + language(", ", "，") + text.title(chapter)
        + (chapter.exercises.isEmpty ? "" : language(", ", "，") + exercise.file))
    let shown = counts[key] ?? []
    let command =
      "swift run workshop hint \(chapter.paddedNumber)"
      + (chapter.exercises.isEmpty ? "" : " --exercise \(exercise.name)")
    // The hints about a check that still fails; with no grade to go by, all.
    let failing = Whereabouts(workspace: workspace).lastGrade(chapter).map { last in
      last.failing.filter { exercise.owns(checkID: $0) }
    }
    let helpful = hints.indices.filter { failing.map(hints[$0].isAbout(anyOf:)) ?? true }
    guard let next = helpful.first(where: { !shown.contains($0) }) else {
      let last = helpful.last ?? hints.count - 1
      console.out(
        style.bold(
          language("Hint \(last + 1) of \(hints.count), again", "提示 \(last + 1)/\(hints.count)，再看一次")) + about
      )
      console.out("")
      console.out(text.hint(last, of: exercise, in: chapter))
      console.out("")
      console.out(
        last == hints.count - 1
          ? language("That was the last hint for this exercise.", "这是这个练习的最后一条提示。")
          : language("The hints after it are about checks that pass now.", "后面的提示针对的是现在已经通过的检查。"))
      console.out(
        language("When it passes, compare with the reference: ", "通过之后，和参考答案对照：")
          + style.command("swift run workshop solution \(chapter.paddedNumber)")
          + language(". To read the hints again: ", "。想再看一遍提示：")
          + style.command(
            command.replacingOccurrences(of: " --exercise \(exercise.name)", with: "") + " --reset")
          + language(".", "。"))
      return ExitCode.success
    }
    counts[key] = shown.union([next])
    do { try store.save(counts) } catch {
      console.err(
        language("warning: cannot save hint progress: ", "warning: 无法保存提示进度：") + error.localizedDescription)
    }
    let skipped = hints.indices.filter { $0 < next && !shown.contains($0) && !helpful.contains($0) }
    console.out(
      style.bold(language("Hint \(next + 1) of \(hints.count)", "提示 \(next + 1)/\(hints.count)")) + about)
    if !skipped.isEmpty {
      let numbers = skipped.map { "\($0 + 1)" }
      console.out(
        style.dim(
          language(
            "(Left out: hint\(skipped.count == 1 ? "" : "s") \(numbers.joined(separator: ", ")), about checks that pass now.)",
            "（略过了提示 \(numbers.joined(separator: "、"))：它们针对的检查现在已经通过。）")))
    }
    console.out("")
    console.out(text.hint(next, of: exercise, in: chapter))
    console.out("")
    let more = helpful.contains { $0 > next && !shown.contains($0) }
    console.out(
      (more
        ? language("Run it again for the next hint, or try ", "再运行一次可以看下一条提示，或者改完代码后试试 ")
        : language("Try ", "改完代码后试试 "))
        + style.command("swift run workshop check \(chapter.paddedNumber)")
        + language(" after your next change.", "。"))
    return ExitCode.success
  }

  /// What `hint` says of a chapter that is done.
  private func done(_ chapter: Curriculum.Chapter) -> String {
    style.green(language("Chapter \(chapter.paddedNumber) is done!", "第 \(chapter.paddedNumber) 章完成了！"))
      + language(" Compare with the reference: ", "和参考答案对照：")
      + style.command("swift run workshop solution \(chapter.paddedNumber)") + language(".", "。")
  }

  /// The exercises of a chapter whose checks do not all pass, from the last
  /// grading if the code has not changed since, otherwise from grading it now.
  private func openExercises(_ chapter: Curriculum.Chapter, _ workspace: Workspace) -> [Curriculum.Exercise]?
  {
    let whereabouts = Whereabouts(workspace: workspace)
    if whereabouts.lastGrade(chapter) == nil {
      guard grade(workspace, GradingOptions(), chapters: [chapter]) != nil else { return nil }
    }
    guard let last = whereabouts.lastGrade(chapter) else { return chapter.allExercises }
    if !last.brokenFiles.isEmpty {
      // Those whose file does not compile, or all of them if no file is named.
      let broken = chapter.allExercises.filter { exercise in
        last.brokenFiles.contains { ($0 as NSString).lastPathComponent == exercise.file }
      }
      return broken.isEmpty ? chapter.allExercises : broken
    }
    return chapter.allExercises.filter { exercise in last.failing.contains { exercise.owns(checkID: $0) } }
  }
}

extension String {
  /// The string with its first letter in upper case.
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
