import Foundation
import WorkshopCore

extension Verifier {
  /// Where `verify` writes the starters' timelines: the pages it opens in
  /// Chromium, and the pictures the decks should show.
  var timelineOutput: URL { workspace.url(".build/verify-timelines") }

  /// The item of the timelines' render in Chromium, for `count` pictures.
  static func timelinesRenderItem(_ count: Int) -> String {
    "the starters' \(count) timelines render in Chromium: every event drawn, no text overlapping or leaving its lanes"
  }

  /// What ``startTimelineRender(starters:)`` drew and started: the
  /// starters' pages, drawn once for both the browser and the slides' check,
  /// and the browser's check of them, or why it could not start.
  struct TimelineRender {
    enum Browser {
      case started(BrowserCheck)
      case failed([String])
    }
    var pages: [(report: ChapterReport, page: TimelinePage)]
    var browser: Browser
  }

  /// Writes every starter's timeline page and starts opening them in
  /// headless Chromium (`scripts/check-timelines.sh`), in the background:
  /// the browser runs on virtual time, so `verify` grades the fixes
  /// meanwhile and reports it in ``checkTimelines(_:render:)``.
  func startTimelineRender(starters reports: [ChapterReport]) -> TimelineRender {
    let pages = reports.map { (report: $0, page: TimelinePage($0)) }
    func failed(_ problems: [String]) -> TimelineRender {
      TimelineRender(pages: pages, browser: .failed(problems))
    }
    try? FileManager.default.removeItem(at: timelineOutput)
    var written: [String] = []
    for (report, page) in pages where !page.pictures.isEmpty {
      let url = timelineOutput.appendingPathComponent(report.chapter.folder + ".html")
      do {
        try FileManager.default.createDirectory(at: timelineOutput, withIntermediateDirectories: true)
        try Data(page.html.utf8).write(to: url)
        written.append(url.path)
      } catch {
        return failed(["cannot write \(url.path): \(error)"])
      }
    }
    guard !written.isEmpty else {
      return failed(["no starter's failing check recorded events to draw"])
    }
    let script = "scripts/check-timelines.sh"
    return TimelineRender(
      pages: pages, browser: .started(BrowserCheck(workspace: workspace, script: script, written)))
  }

  /// The timelines: the decks show the pictures the starters draw now, from
  /// the events their failing checks sent as values, and every starter's
  /// page renders in Chromium with nothing overlapping (`render`; skipped,
  /// with the reason, when Node.js or Chromium is missing).
  func checkTimelines(_ tally: Tally, render: TimelineRender) {
    let pages = render.pages

    // 0. The verdicts arrive as values: every failure of a starter's check,
    // other than a crash or a race, comes with the kit's verdict (in the
    // chapters whose checks the course wrote: the learner's own need not
    // use the kit). Without
    // it, the report shows Swift Testing's words, and no timeline or
    // pointer can be made of them (a toolchain that stopped carrying the
    // attachment, or a check that fails outside the kit).
    var bare: [String] = []
    for report in pages.map(\.report) where !report.chapter.writesChecks {
      for check in report.checks where check.status == .failed {
        for issue in check.issues
        where issue.verdict == nil && !issue.isCrash && !issue.isRace && issue.runtimeSaid.isEmpty {
          bare.append("\(report.chapter.paddedNumber) \(check.name): \(issue.text.prefix(120))")
        }
      }
    }
    tally.item(
      bare.isEmpty,
      "every failure of the starters' checks comes with the kit's verdict as values (the report, the timeline and the pointer are made from it)",
      Array(bare.prefix(10)) + (bare.count > 10 ? ["and \(bare.count - 10) more"] : []))

    // 1. The decks' pictures are the ones the starters draw now, as a slide
    // shows them (an excerpt large enough to read: TimelinePage.Picture.slideSVG).
    let slidesFolder = workspace.url("Slides/timelines")
    let shipped = ((try? FileManager.default.contentsOfDirectory(atPath: slidesFolder.path)) ?? [])
      .filter { $0.hasSuffix(".svg") }.sorted()
    var stale: [String] = []
    for file in shipped {
      let number = Int(file.prefix(while: \.isNumber))
      let name = String(file.drop(while: \.isNumber).dropFirst())
      guard let (report, page) = pages.first(where: { $0.report.chapter.number == number }),
        let picture = page.pictures.first(where: { $0.fileName == name })
      else {
        stale.append(
          "Slides/timelines/\(file): no failing check of that chapter's starter draws it. Delete it, or name it"
            + " NN-<name>.svg after a picture <name>.svg in .workshop/timelines/NN-Name/ (its slide version is"
            + " <name>.slide.svg there) and update the deck that shows it")
        continue
      }
      let current =
        (try? String(contentsOf: slidesFolder.appendingPathComponent(file), encoding: .utf8)) ?? ""
      guard current != picture.slideSVG else { continue }
      let fresh = timelineOutput.appendingPathComponent("slides").appendingPathComponent(file)
      try? FileManager.default.createDirectory(
        at: fresh.deletingLastPathComponent(), withIntermediateDirectories: true)
      try? Data(picture.slideSVG.utf8).write(to: fresh)
      stale.append(
        "Slides/timelines/\(file) is not what check \(report.chapter.paddedNumber)'s starter draws now:"
          + " if the change is right, cp \(workspace.relativize(fresh.path)) Slides/timelines/")
    }
    tally.item(
      stale.isEmpty, "the timelines on the slides (Slides/timelines/) are the ones the starters draw now",
      stale)

    // 2. Every page renders, and nothing in a picture overlaps.
    let item = Self.timelinesRenderItem(pages.map(\.page.pictures.count).reduce(0, +))
    switch render.browser {
    case .started(let check):
      report(check.outcome(), tally, item, script: check.script, problemMarker: ", timeline ")
    case .failed(let problems):
      tally.item(false, item, problems)
    }
  }
}
