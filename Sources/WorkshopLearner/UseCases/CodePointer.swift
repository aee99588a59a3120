import Foundation
import WorkshopCore

/// Where in the learner's own code a failing check points, as
/// `Chapters/06-Continuations/ProfileBridge.swift:12`, shown before anything
/// in the hidden checks.
///
/// From the most to the least precise:
/// 1. a place in the learner's code the grader found (a data race's
///    access), or a file and line the runtime printed as it crashed
///    (`Fatal error` in a force unwrap or a `precondition` names
///    `Module/File.swift:line`), or the line its backtrace shows the
///    crashed thread stopped at (the second `resume` of a continuation);
/// 2. a function the runtime named (`SWIFT TASK CONTINUATION MISUSE:
///    profile(id:) ...`), or the operation the kit's hang guard gave up on
///    (its verdict's `unfinished`), found by its declaration in the
///    chapter's files;
/// 3. the declaration the check exercises (its `.exercising("…")` trait),
///    at its line in the learner's file as it is now;
/// 4. the first `// TODO:` left in the file of the exercise the check grades.
///
/// It reads the learner's files, so the use cases run it and hand what it
/// found to the presentation, which reads none (``Report``).
struct CodePointer {
  var workspace: Workspace
  var variant: Variant
  /// The language of what it says is at the place (a declaration's name stays as written).
  var words: Language = .english

  /// Where each failing or interrupted check of `report` points, by check ID.
  func pointers(_ report: ChapterReport) -> [String: Found] {
    var found: [String: Found] = [:]
    for check in report.checks where check.status == .failed || check.status == .interrupted {
      found[check.id] = locate(check, in: report.chapter)
    }
    return found
  }

  /// A `file:line` in the learner's code, and what is there.
  typealias Found = (location: String, what: String)

  /// The learner's `file:line` for a failing check, with what is there.
  func locate(_ check: CheckResult, in chapter: Curriculum.Chapter) -> Found? {
    let folder = workspace.codeFolder(chapter, variant)
    // 1. A place the grader found.
    if let found = check.issues.lazy.compactMap(\.codeLocation).first {
      return (found, words("where it races", "竞争发生处"))
    }
    // What the Swift runtime said, the one text here not the kit's or the grader's.
    let said = check.issues.flatMap { $0.runtimeSaid + ($0.verdict?.runtimeSaid ?? []) }.joined(
      separator: "\n")
    // 1. The runtime's own file and line, in the chapter's module.
    for match in said.matches(of: /([A-Za-z_][\w]*)\/([\w+-]+\.swift):(\d+)/)
    where String(match.output.1) == chapter.codeModule
      && FileManager.default.fileExists(atPath: workspace.url(folder + "/" + match.output.2).path)
    {
      return ("\(folder)/\(match.output.2):\(match.output.3)", words("where it stopped", "停下的地方"))
    }
    // 1. Where the crashed thread stopped, from the runtime's backtrace:
    //    `Stopped at 06-Continuations/ProfileBridge.swift:48, in ...`.
    for match in said.matches(of: /Stopped at ([\w-]+)\/([\w+-]+\.swift):(\d+)/)
    where String(match.output.1) == chapter.folder
      && FileManager.default.fileExists(atPath: workspace.url(folder + "/" + match.output.2).path)
    {
      return ("\(folder)/\(match.output.2):\(match.output.3)", words("where it stopped", "停下的地方"))
    }
    // 2. A function named by the runtime or the kit.
    let unfinished = check.issues.lazy.compactMap { $0.verdict?.unfinished }.first.map {
      String($0.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }
    let named = said.firstMatch(of: /MISUSE: ([A-Za-z_]\w*)\(/).map { String($0.output.1) } ?? unfinished
    if let name = named, !name.isEmpty {
      for file in chapter.files {
        if let line = lineNumber(in: folder + "/" + file, of: "func \(name)(") {
          return ("\(folder)/\(file):\(line)", "\(name)(...)")
        }
      }
    }
    // 3. The declaration the check exercises, where it is now.
    let exercise = chapter.allExercises.first { $0.owns(checkID: check.id) } ?? chapter.allExercises.first
    let exercised = ExercisedDeclarations(workspace: workspace)
    if !chapter.writesChecks, let declaration = exercised.declaration(ofCheck: check.id, in: chapter),
      let found = exercised.location(
        of: declaration, in: chapter, variant: variant, preferring: exercise?.file)
    {
      return ("\(found.path):\(found.line)", declaration)
    }
    // 4. The exercise's file, at its first TODO.
    guard let file = exercise?.file, !file.isEmpty else { return nil }
    let path = folder + "/" + file
    guard FileManager.default.fileExists(atPath: workspace.url(path).path) else { return nil }
    if let line = lineNumber(in: path, of: "TODO:") {
      return ("\(path):\(line)", words("the TODO there", "那里的 TODO"))
    }
    return ("\(path):1", words("the exercise's file", "练习的文件"))
  }

  /// The first line of a file containing `needle`, counted from 1.
  private func lineNumber(in path: String, of needle: String) -> Int? {
    guard let text = try? String(contentsOf: workspace.url(path), encoding: .utf8) else { return nil }
    let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(
      separator: "\n", omittingEmptySubsequences: false)
    return lines.firstIndex { $0.contains(needle) }.map { $0 + 1 }
  }
}
