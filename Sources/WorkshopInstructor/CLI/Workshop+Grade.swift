import Foundation
import Synchronization
import WorkshopCore

/// `workshop grade`: a class's submissions, graded and reported.
extension Workshop {
  func grade(_ workspace: Workspace, _ options: GradeCommand) -> Int32 {
    let paths = options.submissions
    // Every submission must be something to grade: a typo in a path is the
    // instructor's to fix before anyone is graded.
    for path in paths {
      let url = Self.resolve(path, in: directory)
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
        console.err("error: no such file or folder: \(path)")
        console.err(subcommands.usage(for: "grade"))
        return ExitCode.usage
      }
      guard isFolder.boolValue || Submission.ArchiveKind(url) != nil else {
        console.err("error: \(path) is not a folder, a .zip or a .tar.gz")
        console.err(subcommands.usage(for: "grade"))
        return ExitCode.usage
      }
    }
    let sandbox: Sandbox?
    if options.unsandboxed {
      sandbox = nil
      console.err(
        style.yellow("warning:")
          + " grading unsandboxed (--unsandboxed): learners' code runs with your permissions.")
    } else {
      guard let current = Sandbox.current else {
        console.err(
          "error: grade runs learners' code only in a sandbox, and this machine has none ("
            + Sandbox.unavailableNote.replacingOccurrences(of: "not sandboxed: ", with: "") + ")")
        console.err(
          "Grade on Linux with bubblewrap (see docs/instructors.md, \"Grading a class\"), or pass --unsandboxed if you trust every submission."
        )
        return ExitCode.failure
      }
      sandbox = current
    }

    let names = Self.uniqueNames(paths.map { Self.submissionName($0, in: directory) })
    let reportFolder = Self.resolve(options.reportDirectory, in: directory)
    let reports = ClassReports(course: workspace, style: style, words: language)
    do {
      try FileManager.default.createDirectory(at: reportFolder, withIntermediateDirectories: true)
      // A report of an earlier run is not one of this run: an interrupted
      // run leaves no class report rather than an old one.
      for name in ["class.csv", "class.html", "summary.md"] {
        try? FileManager.default.removeItem(at: reportFolder.appendingPathComponent(name))
      }
      // A report being written when a run was killed is never read as one,
      // and a submission's reports from an earlier run are not this run's.
      for path in Submission.walk(reportFolder, limit: 100_000) {
        let file = (path as NSString).lastPathComponent
        let depth = path.split(separator: "/").count
        guard file.hasSuffix(".partial") || (depth == 2 && ["results.json", "junit.xml"].contains(file))
        else {
          continue
        }
        try? FileManager.default.removeItem(at: reportFolder.appendingPathComponent(path))
        let folder = reportFolder.appendingPathComponent(path).deletingLastPathComponent()
        if folder.path != reportFolder.path,
          (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true
        {
          try? FileManager.default.removeItem(at: folder)
        }
      }
    } catch {
      console.err("error: cannot write reports in \(options.reportDirectory): \(error.localizedDescription)")
      return ExitCode.failure
    }
    let jobs = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
    let width = min(jobs, paths.count)
    console.out(
      language(
        style.bold("Grading \(paths.count) submission\(paths.count == 1 ? "" : "s")")
          + style.dim(
            " · \(width) at a time · \(sandbox == nil ? "unsandboxed" : "sandboxed") · against \(workspace.root.path)"
          ),
        style.bold("正在评分 \(paths.count) 份提交")
          + style.dim(" · 同时 \(width) 份 · \(sandbox == nil ? "没有沙箱" : "在沙箱里") · 对照 \(workspace.root.path)")))
    let nameWidth = max(10, names.map { Columns.width(of: $0) }.max() ?? 0) + 2
    let failedWrites = Mutex<[String]>([])
    let grader = ClassGrader(
      course: workspace, jobs: jobs, timeLimit: options.timeLimit, sandbox: sandbox, progress: console.status)
    let outcome: (grades: [SubmissionGrade], items: ClassGrader.Items)
    do {
      outcome = try grader.grade(paths.map { Self.resolve($0, in: directory).path }, names: names) {
        grade, items in
        let result = ClassResult(grade, items: items, course: workspace, words: language)
        let folder = reportFolder.appendingPathComponent(grade.name)
        do {
          try ClassReports.writeAtomically(
            try reports.gradescopeJSON(result), to: folder.appendingPathComponent("results.json"))
          try ClassReports.writeAtomically(
            Data(reports.junit(result).utf8), to: folder.appendingPathComponent("junit.xml"))
        } catch {
          failedWrites.withLock { $0.append("\(grade.name): \(error.localizedDescription)") }
        }
        console.clearStatus()
        console.out(reports.line(result, nameWidth: nameWidth))
      }
    } catch {
      console.clearStatus()
      console.err("error: \(error)")
      return ExitCode.failure
    }
    console.clearStatus()
    let results = outcome.grades.map {
      ClassResult($0, items: outcome.items, course: workspace, words: language)
    }
    do {
      try ClassReports.writeAtomically(
        Data(reports.csv(results).utf8), to: reportFolder.appendingPathComponent("class.csv"))
      try ClassReports.writeAtomically(
        Data(reports.markdown(results).utf8), to: reportFolder.appendingPathComponent("summary.md"))
      try ClassReports.writeAtomically(
        Data(reports.page(results).utf8), to: reportFolder.appendingPathComponent("class.html"))
    } catch {
      failedWrites.withLock { $0.append("class.csv: \(error.localizedDescription)") }
    }
    console.out("")
    console.out(reports.table(results))
    console.out("")
    let shown = Self.shownPath(reportFolder, from: directory)
    for problem in failedWrites.withLock({ $0 }) {
      console.err("error: a report could not be written: \(problem)")
    }
    let notGraded = results.filter { $0.grade.notGraded != nil }
    console.out(
      language(
        "Reports: \(style.cyan(shown + "/"))class.html (open it in a browser: where the class is stuck), class.csv,"
          + " summary.md, and <submission>/results.json and junit.xml.",
        "报告：\(style.cyan(shown + "/"))class.html（在浏览器里打开：全班卡在哪里）、class.csv、"
          + "summary.md，以及 <submission>/results.json 和 junit.xml。")
    )
    if !notGraded.isEmpty {
      let list = notGraded.map(\.grade.name).joined(separator: ", ")
      console.out(
        language(
          "\(notGraded.count) submission\(notGraded.count == 1 ? " was" : "s were") not graded: \(list). Each one's results.json says why.",
          "\(notGraded.count) 份提交未评分：\(list)。各自的 results.json 写明了原因。"))
    }
    if results.contains(where: { !$0.grade.flags.isEmpty }) {
      console.out(
        language(
          "Submissions marked \"needs review\" hold code no exercise needs: summary.md lists where.",
          "标为“需要复核”的提交里有任何练习都用不到的代码：summary.md 列出了位置。"))
    }
    return notGraded.isEmpty && failedWrites.withLock({ $0.isEmpty }) ? ExitCode.success : ExitCode.failure
  }

  /// `path` as the user typed it, from `directory` unless absolute.
  static func resolve(_ path: String, in directory: URL) -> URL {
    let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
    return url.standardizedFileURL
  }

  /// A submission's name: its folder's or archive's, without extension; the
  /// folder holding it for a bare `Chapters/`.
  static func submissionName(_ path: String, in directory: URL) -> String {
    var url = Self.resolve(path, in: directory).standardizedFileURL
    if url.lastPathComponent == "Chapters" { url.deleteLastPathComponent() }
    var name = url.lastPathComponent
    if let kind = Submission.ArchiveKind(url) { name = kind.stem(of: url) }
    // A folder name of its own in the report folder.
    let cleaned = String(
      name.unicodeScalars.map {
        CharacterSet.alphanumerics.contains($0) || "-_.@+".unicodeScalars.contains($0) ? Character($0) : "_"
      }
    )
    .trimmingCharacters(in: CharacterSet(charactersIn: "."))
    return cleaned.isEmpty ? "submission" : cleaned
  }

  /// `names` with a number added to repeats: `alice`, `alice-2`. Names
  /// are folders, so `Alice` repeats `alice` (a Mac's disk does not tell
  /// them apart), and the class reports' own names are taken.
  static func uniqueNames(_ names: [String]) -> [String] {
    var taken: Set<String> = ["class.csv", "class.html", "summary.md"]
    return names.map { name in
      var candidate = name
      var number = 1
      while taken.contains(candidate.lowercased()) {
        number += 1
        candidate = "\(name)-\(number)"
      }
      taken.insert(candidate.lowercased())
      return candidate
    }
  }

  /// A path as the user would type it from `directory`.
  static func shownPath(_ url: URL, from directory: URL) -> String {
    let base = directory.standardizedFileURL.path
    let path = url.standardizedFileURL.path
    if path == base { return "." }
    return path.hasPrefix(base + "/") ? String(path.dropFirst(base.count + 1)) : path
  }
}
