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
      console.out("No timeline: the chapter does not compile, so no check ran.")
      return ExitCode.success
    }
    let pointers = CodePointer(workspace: workspace, variant: variant)
    let page = TimelinePage(report) { check in
      pointers.locate(check, in: chapter).map { "\($0.location):1 (\($0.what))" }
    }
    guard !page.pictures.isEmpty else {
      console.out(
        report.failing.isEmpty
          ? "No timeline: every check passes."
          : "No timeline: the failing checks recorded no events to draw.")
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
        "error: cannot write the timeline in \(path(folder, in: workspace)): \(error.localizedDescription)")
      return ExitCode.failure
    }
    // A check with several recorded logs (one per case or expectation) has a picture for each.
    let checks = Set(page.pictures.map(\.check)).count
    let count = page.pictures.count
    let drawn = count == checks ? "" : ", \(count) pictures"
    console.out(
      "Timeline of \(checks) failing check\(checks == 1 ? "" : "s")\(drawn): open \(style.cyan(path(pageURL, in: workspace)))"
        + " in a browser (an SVG of each picture in \(path(pictures, in: workspace))/, and a larger excerpt"
        + " for a slide, *.slide.svg).")
    return ExitCode.success
  }
}
