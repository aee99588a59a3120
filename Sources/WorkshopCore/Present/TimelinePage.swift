import CheckTranscript
import Foundation

/// One self-contained HTML page with the timeline of every failing check of
/// a chapter, and one SVG file per timeline.
package struct TimelinePage: Sendable {
  package struct Picture: Sendable, Equatable {
    /// The check's name.
    package var check: String
    var verdict: Verdict
    /// The file name of its SVG: `late-answer-for-an-old-keyword.svg`.
    package var fileName: String
    package var svg: String
    /// The same picture for a slide: the rows around the first that should
    /// not have happened (``Timeline/excerpt(rows:)``), lanes and labels
    /// only, so that its text reads at 18 px or more on a 1280×720 slide.
    package var slideSVG: String
    /// Where in the learner's code to look: `Chapters/…/File.swift:63 (the TODO there)`.
    var pointer: String?
  }

  var title: String
  var subtitle: String
  package var pictures: [Picture]
  /// The language of the page's own words (the checks' names and recorded
  /// events stay as the checks wrote them).
  var words: Language

  /// The pictures of `report`'s failing checks that recorded events;
  /// `pointer` says where in the learner's code to look for a check.
  package init(
    _ report: ChapterReport, course: CourseText? = nil, pointer: (CheckResult) -> String? = { _ in nil }
  ) {
    let words = course?.language ?? .english
    self.words = words
    let number = report.chapter.paddedNumber
    title =
      words("Chapter \(number) · ", "第 \(number) 章 · ")
      + (course?.title(report.chapter) ?? report.chapter.title)
    subtitle = course?.summary(report.chapter) ?? report.chapter.summary
    var pictures: [Picture] = []
    var names: Set<String> = []
    for check in report.failing {
      for verdict in Timeline.verdicts(of: check) {
        var name = Self.slug(check.name)
        var number = 2
        while names.contains(name) {
          name = Self.slug(check.name) + "-\(number)"
          number += 1
        }
        names.insert(name)
        // Learner code can make a check record any number of events: the
        // picture draws the first ones, and the terminal lists them all.
        let events = Array(verdict.events.prefix(Self.eventLimit))
        let title =
          check.name
          + (events.count < verdict.events.count
            ? words(
              " (the first \(events.count) of \(verdict.events.count) events)",
              "（\(verdict.events.count) 个事件中的前 \(events.count) 个）") : "")
        let timeline = Timeline(events: events, expected: verdict.expected, actual: verdict.actual)
        let excerpt = TimelineDrawing.slideExcerpt(of: timeline)
        let rows = excerpt.steps.map(\.number)
        let slideTitle =
          rows.count < timeline.steps.count
          ? "Rows \(rows.first ?? 0)–\(rows.last ?? 0) of \(timeline.steps.count)" : "\(rows.count) rows"
        pictures.append(
          Picture(
            check: check.name, verdict: verdict, fileName: name + ".svg",
            svg: TimelineDrawing(timeline, title: title).svg,
            slideSVG: TimelineDrawing(excerpt, title: slideTitle, showsWords: false).svg,
            pointer: pointer(check)))
      }
    }
    self.pictures = pictures
  }

  /// The most events a picture draws.
  static let eventLimit = 300

  /// `A late answer for an old keyword never replaces newer results` →
  /// `a-late-answer-for-an-old-keyword-never-replaces-newer-results`.
  static func slug(_ name: String) -> String {
    let words = name.lowercased().unicodeScalars.split {
      !CharacterSet.alphanumerics.contains($0) || !$0.isASCII
    }
    let slug = words.map { String(String.UnicodeScalarView($0)) }.joined(separator: "-")
    return String(slug.prefix(80))
  }

  /// The page: each failing check's verdict above its picture.
  package var html: String {
    let esc = TimelineDrawing.escape
    var body: [String] = []
    for picture in pictures {
      var verdict = picture.pointer.map { "<p class=\"pointer\">→ <code>\(esc($0))</code></p>" } ?? ""
      verdict += "<p class=\"behaviour\">\(esc(picture.verdict.behaviour))</p>"
      if let expected = picture.verdict.expected {
        verdict += "<p><b>\(words("Expected:", "预期："))</b> <code>\(esc(expected))</code></p>"
      }
      if let actual = picture.verdict.actual {
        verdict += "<p><b>\(words("Actual:", "实际："))</b> <code>\(esc(actual))</code></p>"
      }
      body.append(
        """
        <section id="\(picture.fileName.dropLast(4))">
        <h2>✗ \(esc(picture.check))</h2>
        \(verdict)
        <div class="picture">\(picture.svg)</div>
        </section>
        """)
    }
    return """
      <!DOCTYPE html>
      <html lang="\(words.rawValue)"><head><meta charset="utf-8"><title>\(esc(title)) · \(words("timelines", "时间线"))</title>
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <style>
        body { font: 15px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #24292f; margin: 24px; }
        h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 32px 0 6px; color: #cf222e; }
        p { margin: 4px 0; } .subtitle { color: #57606a; } code { font-size: 13px; } .pointer code { color: #0969da; }
        .picture { overflow-x: auto; margin-top: 10px; border: 1px solid #d0d7de; border-radius: 6px; }
        .picture svg { display: block; }
      </style></head><body>
      <h1>\(esc(title))\(words(": what happened in each failing check", "：每项失败的检查里发生了什么"))</h1>
      <p class="subtitle">\(esc(subtitle)) \(words(
        "Each picture is the check's recorded events, in order and numbered as in the terminal: one lane per participant, your code in blue, and in red what should not have happened.",
        "每幅图都是这项检查记录下来的事件，按顺序排列，编号和终端里一样：每个参与者一条泳道，你的代码是蓝色，不该发生的是红色。"))</p>
      \(body.joined(separator: "\n"))
      </body></html>

      """
  }
}
