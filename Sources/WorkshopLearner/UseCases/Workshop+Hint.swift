import Foundation
import WorkshopCore

/// `workshop hint`: one more hint, for the exercise that still fails.
extension Workshop {
  func hint(_ chapter: Curriculum.Chapter, _ workspace: Workspace, reset: Bool, exercise query: String?)
    -> Int32
  {
    let store = HintStore(directory: workspace.stateDirectory)
    var counts = store.load()
    let label = "chapter \(chapter.paddedNumber)"
    if reset {
      for key in counts.keys where key == chapter.folder || key.hasPrefix(chapter.folder + "/") {
        counts[key] = nil
      }
      do { try store.save(counts) } catch {
        console.err("error: cannot save hint progress: \(error.localizedDescription)")
        return ExitCode.failure
      }
      console.out("Hints for \(label) start from the first one again.")
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
            "error: \(label) has no exercise '\(query)'. Its exercises: "
              + exercises.map { "\($0.name) (\($0.file))" }.joined(separator: ", ") + ".")
          return ExitCode.usage
        }
        exercise = found
      } else {
        guard let open = openExercises(chapter, workspace) else { return ExitCode.failure }
        switch open.count {
        case 0 where Whereabouts(workspace: workspace).isKnownDone(chapter):
          console.out(
            style.green("Chapter \(chapter.paddedNumber) is done!") + " Compare with the reference: "
              + style.command("swift run workshop solution \(chapter.paddedNumber)") + ".")
          return ExitCode.success
        case 1:
          exercise = open[0]
        default:
          // Several fail, or none does and still the chapter is not done.
          let open = open.isEmpty ? exercises : open
          console.out(
            (open.count == exercises.count ? "The exercises" : "\(open.count) exercises")
              + " of \(label) still need work. Which one would you like a hint for?")
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
      console.err("error: \(label) has one exercise, \(exercises[0].file): leave out '--exercise \(query)'.")
      return ExitCode.usage
    } else if Whereabouts(workspace: workspace).isKnownDone(chapter) {
      // A done chapter needs no hint: its last grade, kept, says so.
      console.out(
        style.green("Chapter \(chapter.paddedNumber) is done!") + " Compare with the reference: "
          + style.command("swift run workshop solution \(chapter.paddedNumber)") + ".")
      return ExitCode.success
    }

    let key = chapter.exercises.isEmpty ? chapter.folder : chapter.folder + "/" + exercise.name
    let hints = exercise.hints
    guard !hints.isEmpty else {
      console.out("\(label.capitalizedFirst) has no hints. Read its README.md and the failing checks.")
      return ExitCode.success
    }
    let about = style.dim(
      " · \(label), \(chapter.title)" + (chapter.exercises.isEmpty ? "" : ", \(exercise.file)"))
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
      console.out(style.bold("Hint \(last + 1) of \(hints.count), again") + about)
      console.out("")
      console.out(hints[last].text)
      console.out("")
      console.out(
        last == hints.count - 1
          ? "That was the last hint for this exercise."
          : "The hints after it are about checks that pass now.")
      console.out(
        "When it passes, compare with the reference: "
          + style.command("swift run workshop solution \(chapter.paddedNumber)")
          + ". To read the hints again: "
          + style.command(
            command.replacingOccurrences(of: " --exercise \(exercise.name)", with: "") + " --reset") + ".")
      return ExitCode.success
    }
    counts[key] = shown.union([next])
    do { try store.save(counts) } catch {
      console.err("warning: cannot save hint progress: \(error.localizedDescription)")
    }
    let skipped = hints.indices.filter { $0 < next && !shown.contains($0) && !helpful.contains($0) }
    console.out(style.bold("Hint \(next + 1) of \(hints.count)") + about)
    if !skipped.isEmpty {
      console.out(
        style.dim(
          "(Left out: hint\(skipped.count == 1 ? "" : "s") \(skipped.map { "\($0 + 1)" }.joined(separator: ", ")),"
            + " about checks that pass now.)"))
    }
    console.out("")
    console.out(hints[next].text)
    console.out("")
    let more =
      helpful.contains { $0 > next && !shown.contains($0) }
      ? "Run it again for the next hint, or try " : "Try "
    console.out(
      more + style.command("swift run workshop check \(chapter.paddedNumber)") + " after your next change.")
    return ExitCode.success
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
