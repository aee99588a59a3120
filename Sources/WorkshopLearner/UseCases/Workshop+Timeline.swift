import Foundation
import WorkshopCore

/// `workshop check <chapter> --timeline`: each failing check's events, drawn.
extension Workshop {
  /// Writes the chapter's timeline page and pictures, replacing any earlier
  /// ones, and says where they are.
  func writeTimelines(_ report: ChapterReport, _ workspace: Workspace, _ variant: Variant = .chapters)
    -> Int32
  {
    let chapter = report.chapter
    let folder = workspace.stateDirectory.appendingPathComponent(CheckCommand.timelineFolder)
    let pictures = folder.appendingPathComponent(chapter.folder)
    let pageURL = folder.appendingPathComponent(chapter.folder + ".html")
    // Pictures of an earlier run may show checks that pass now.
    try? FileManager.default.removeItem(at: pictures)
    try? FileManager.default.removeItem(at: pageURL)
    guard report.compileErrors.isEmpty else {
      console.out(
        language("No timeline: the chapter does not compile, so no check ran.", "没有时间线：这一章编译失败，没有检查运行。"))
      return ExitCode.success
    }
    let pointers = CodePointer(workspace: workspace, variant: variant, words: language)
    let page = TimelinePage(report, course: CourseText(workspace: workspace, language: language)) { check in
      pointers.locate(check, in: chapter).map { "\($0.location):1 (\($0.what))" }
    }
    guard !page.pictures.isEmpty else {
      console.out(
        report.failing.isEmpty
          ? language("No timeline: every check passes.", "没有时间线：所有检查都通过了。")
          : language(
            "No timeline: the failing checks recorded no events to draw.", "没有时间线：失败的检查没有记录可画的事件。"))
      return ExitCode.success
    }
    do {
      try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
      for picture in page.pictures {
        try Data(picture.svg.utf8).write(to: pictures.appendingPathComponent(picture.fileName))
        // The excerpt a slide shows (what Slides/timelines/ holds), for instructors' own decks.
        let slide = String(picture.fileName.dropLast(".svg".count)) + ".slide.svg"
        try Data(picture.slideSVG.utf8).write(to: pictures.appendingPathComponent(slide))
      }
      try Data(page.html.utf8).write(to: pageURL)
    } catch {
      console.err(
        language("error: cannot write the timeline in ", "error: 无法把时间线写入 ") + path(folder, in: workspace)
          + language(": ", "：") + error.localizedDescription)
      return ExitCode.failure
    }
    // A check with several recorded logs (one per case or expectation) has a picture for each.
    let checks = Set(page.pictures.map(\.check)).count
    let count = page.pictures.count
    let link = style.cyan(path(pageURL, in: workspace))
    let folderPath = path(pictures, in: workspace)
    console.out(
      language(
        "Timeline of \(checks) failing check\(checks == 1 ? "" : "s")\(count == checks ? "" : ", \(count) pictures"): open \(link)"
          + " in a browser (an SVG of each picture in \(folderPath)/, and a larger excerpt"
          + " for a slide, *.slide.svg).",
        "\(checks) 项失败检查的时间线\(count == checks ? "" : "，共 \(count) 幅图")：在浏览器里打开 \(link)"
          + "（每幅图的 SVG 在 \(folderPath)/，适合放进幻灯片的放大片段是 *.slide.svg）。"))
    return ExitCode.success
  }
}
