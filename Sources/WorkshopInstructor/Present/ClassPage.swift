import Foundation
import WorkshopCore

/// `class.html`: the page an instructor opens after grading a class, to see
/// where the class is stuck. One self-contained file (no scripts, fonts or
/// anything else fetched), written from the same results as every other
/// report:
///
/// - where the class is stuck: the checks failing most among the
///   submissions that started their chapter, with each one's most common
///   failure;
/// - each chapter across the class: how many submissions did not start it,
///   started it and are not done, and are done; how many checks pass;
/// - every check by every submission, a symbol and a colour per cell (the
///   symbol alone reads in greyscale; each cell's words are there for a
///   screen reader), each row linking to the submission's own report.
///
/// ```swift
/// let page = ClassReports(course: workspace, style: style).page(results)
/// try ClassReports.writeAtomically(Data(page.utf8), to: folder.appendingPathComponent("class.html"))
/// ```
extension ClassReports {
  /// What a cell of the heat map says about one check of one submission.
  enum Cell: String, CaseIterable {
    case passed, failed, crashed, timedOut, notCompiled, notHandedIn, noResult

    /// A symbol that tells it apart without colour.
    var symbol: String {
      switch self {
      case .passed: "✓"
      case .failed: "✗"
      case .crashed: "!"
      case .timedOut: "∞"
      case .notCompiled: "#"
      case .notHandedIn: "–"
      case .noResult: "?"
      }
    }

    /// The words a screen reader says, and the legend shows.
    var words: String {
      switch self {
      case .passed: "passed"
      case .failed: "failed"
      case .crashed: "crashed"
      case .timedOut: "timed out"
      case .notCompiled: "does not compile"
      case .notHandedIn: "not handed in"
      case .noResult: "no result"
      }
    }

    init(_ item: ClassResult.Item, in chapter: ClassResult.Chapter) {
      switch item.status {
      case .passed: self = .passed
      case .failed: self = .failed
      case .error:
        switch chapter.state {
        case .doesNotCompile: self = .notCompiled
        case .notHandedIn: self = .notHandedIn
        case .crashed: self = .crashed
        case .timedOut: self = .timedOut
        default: self = .noResult
        }
      }
    }
  }

  /// The class page for `results`, one per submission, in the order given.
  func page(_ results: [ClassResult]) -> String {
    let graded = results.filter { $0.grade.notGraded == nil }
    let columns = Self.columns(of: graded)
    let review = results.filter { !$0.grade.flags.isEmpty }.count
    var summary = "\(results.count) submission\(results.count == 1 ? "" : "s") · \(graded.count) graded"
    if results.count > graded.count { summary += " · \(results.count - graded.count) not graded" }
    if review > 0 { summary += " · \(review) to review" }
    summary += " · \(columns.count) checks"
    let title = escape(course.curriculum.title) + " · class report"
    var html = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(title)</title>
      <style>\(Self.pageStyle)</style>
      </head>
      <body>
      <h1>\(title)</h1>
      <p class="summary">\(summary)</p>

      """
    html += mostFailed(graded, columns: columns)
    html += chapterTable(graded)
    html += heatMap(results, columns: columns)
    let notGraded = results.filter { $0.grade.notGraded != nil }
    if !notGraded.isEmpty {
      html += "<section>\n<h2>Not graded</h2>\n<ul class=\"plain\">\n"
      for result in notGraded {
        html +=
          "<li><a href=\"\(escape(Self.link(result)))\">\(escape(result.grade.name))</a>: \(escape(firstLine(of: result.grade.notGraded ?? "")))</li>\n"
      }
      html += "</ul>\n</section>\n"
    }
    return html + "</body>\n</html>\n"
  }

  /// A column of the heat map: one check of the course.
  struct Column {
    var chapter: Curriculum.Chapter
    var number: String
    var name: String
  }

  /// The course's checks in course order, as the graded submissions list them.
  static func columns(of graded: [ClassResult]) -> [Column] {
    var seen: Set<String> = []
    var columns: [Column] = []
    for result in graded {
      for item in result.items where seen.insert(item.number).inserted {
        columns.append(Column(chapter: item.chapter, number: item.number, name: item.name))
      }
    }
    return columns.sorted { ($0.chapter.number, $0.position) < ($1.chapter.number, $1.position) }
  }

  /// Where a submission's own report is, from the page.
  static func link(_ result: ClassResult) -> String {
    result.grade.name + "/results.json"
  }

  /// The checks that fail most often among the submissions that started
  /// their chapter: a chapter nobody started says nothing about where the
  /// class is stuck, so its checks are left out, and a count reads "3 of the
  /// 4 who started".
  private func mostFailed(_ graded: [ClassResult], columns: [Column]) -> String {
    struct Failing {
      var column: Column
      var count = 0
      var started = 0
      var messages: [String: Int] = [:]
    }
    var started: [Int: Int] = [:]
    for result in graded {
      for chapter in result.chapters where chapter.state.progress != .notStarted {
        started[chapter.chapter.number, default: 0] += 1
      }
    }
    var failing: [String: Failing] = [:]
    for result in graded {
      for chapter in result.chapters where chapter.state.progress != .notStarted {
        for item in chapter.items where item.status != .passed {
          var entry =
            failing[item.number]
            ?? Failing(
              column: Column(chapter: item.chapter, number: item.number, name: item.name),
              started: started[chapter.chapter.number] ?? 0)
          entry.count += 1
          entry.messages[firstLine(of: item.output), default: 0] += 1
          failing[item.number] = entry
        }
      }
    }
    var html =
      "<section>\n<h2>Where the class is stuck: the checks failing most among those who started</h2>\n"
    let ranked = failing.values.sorted {
      ($0.count, $0.count * $1.started, $1.column.chapter.number, $1.column.position) > (
        $1.count, $1.count * $0.started, $0.column.chapter.number, $0.column.position
      )
    }
    guard !ranked.isEmpty else {
      let words =
        started.isEmpty
        ? "No submission has started a chapter yet."
        : "Every chapter a submission started passes every check."
      return html + "<p>\(words)</p>\n</section>\n"
    }
    html += "<ol class=\"failing\">\n"
    for entry in ranked.prefix(15) {
      let common = entry.messages.max { ($0.value, $1.key) < ($1.value, $0.key) }
      html +=
        "<li><span class=\"count\">\(entry.count) of \(entry.started)</span> "
        + "<span class=\"sr\">submissions that started the chapter fail </span>"
      html +=
        "<span class=\"check\">\(escape(entry.column.number)) \(escape(entry.column.chapter.title)): \(escape(entry.column.name))</span>"
      if let (message, times) = common, !message.isEmpty {
        html +=
          "<br><span class=\"why\">Most often (\(times) of \(entry.count)): \(escape(String(message.prefix(200))))</span>"
      }
      html += "</li>\n"
    }
    html +=
      "</ol>\n<p class=\"legend\">“3 of 4”: three of the four submissions that started the chapter fail the check.</p>\n"
    return html + "</section>\n"
  }

  /// Per chapter: how many submissions did not start it, started it and are
  /// not done (stuck), and are done, with the share of checks passing.
  private func chapterTable(_ graded: [ClassResult]) -> String {
    var html = """
      <section>
      <h2>Chapters across the class</h2>
      <table class="chapters">
      <thead><tr><th scope="col">Chapter</th><th scope="col">Not started</th><th scope="col">Started, not done</th><th scope="col">Done</th><th scope="col">Checks passing</th></tr></thead>
      <tbody>

      """
    for chapter in course.curriculum.chapters {
      let rows = graded.compactMap { $0.chapters.first { $0.chapter.number == chapter.number } }
      let count = { (progress: ChapterReport.State.Progress) in
        rows.filter { $0.state.progress == progress }.count
      }
      let passed = rows.reduce(0) { $0 + $1.passed }
      let total = rows.reduce(0) { $0 + $1.items.count }
      let share = total == 0 ? 0 : Double(passed) / Double(total)
      let percent = Int((share * 100).rounded())
      let notHandedIn = rows.filter { $0.state == .notHandedIn }.count
      let notCompiling = rows.filter { $0.state == .doesNotCompile }.count
      let stuck = count(.started)
      html += "<tr><th scope=\"row\">\(chapter.paddedNumber) \(escape(chapter.title))</th>"
      html +=
        "<td>\(count(.notStarted))"
        + (notHandedIn > 0 ? " <span class=\"note\">(\(notHandedIn) not handed in)</span>" : "") + "</td>"
      html +=
        "<td\(stuck > 0 ? " class=\"stuck\"" : "")>\(stuck)"
        + (notCompiling > 0
          ? " <span class=\"note\">(\(notCompiling) do\(notCompiling == 1 ? "es" : "") not compile)</span>"
          : "")
        + "</td>"
      html += "<td>\(count(.done))</td>"
      html +=
        "<td><span class=\"bar\" aria-hidden=\"true\"><span style=\"width: \(percent)%\"></span></span> \(percent) %</td></tr>\n"
    }
    return html + "</tbody>\n</table>\n</section>\n"
  }

  private func heatMap(_ results: [ClassResult], columns: [Column]) -> String {
    var html = "<section>\n<h2>Every check by submission</h2>\n<p class=\"legend\">"
    html += Cell.allCases.map { "<span class=\"\($0.rawValue)\">\($0.symbol)</span> \($0.words)" }
      .joined(separator: " · ")
    html += " · <span class=\"review\">⚑</span> code to review</p>\n"
    html +=
      "<div class=\"scroll\">\n<table class=\"heat\" data-submissions=\"\(results.count)\" data-checks=\"\(columns.count)\">\n<thead>\n<tr><td class=\"who\"></td>"
    var chapters: [(Curriculum.Chapter, Int)] = []
    for column in columns {
      if let last = chapters.last, last.0.number == column.chapter.number {
        chapters[chapters.count - 1].1 += 1
      } else {
        chapters.append((column.chapter, 1))
      }
    }
    for (chapter, count) in chapters {
      html +=
        "<th scope=\"colgroup\" colspan=\"\(count)\" title=\"\(escape(chapter.title))\">\(chapter.paddedNumber)</th>"
    }
    html += "</tr>\n<tr><th scope=\"col\" class=\"who\">Submission</th>"
    for column in columns {
      html +=
        "<th scope=\"col\" title=\"\(escape(column.number + " " + column.name))\"><span class=\"sr\">\(escape(column.number + " " + column.name))</span><span aria-hidden=\"true\">\(column.position)</span></th>"
    }
    html += "</tr>\n</thead>\n<tbody>\n"
    for result in results {
      let flagged = !result.grade.flags.isEmpty
      html +=
        "<tr><th scope=\"row\" class=\"who\"><a href=\"\(escape(Self.link(result)))\">\(escape(result.grade.name))</a>"
      html +=
        result.grade.notGraded == nil ? " <span class=\"score\">\(result.passed)/\(result.total)</span>" : ""
      if flagged {
        html +=
          " <span class=\"review\" title=\"needs review\">⚑<span class=\"sr\"> needs review</span></span>"
      }
      html += "</th>"
      var cells: [String: Cell] = [:]
      for chapter in result.chapters {
        for item in chapter.items { cells[item.number] = Cell(item, in: chapter) }
      }
      for column in columns {
        let cell = result.grade.notGraded == nil ? cells[column.number] ?? .noResult : .noResult
        html += "<td class=\"\(cell.rawValue)\">\(cell.symbol)<span class=\"sr\"> \(cell.words)</span></td>"
      }
      html += "</tr>\n"
    }
    return html + "</tbody>\n</table>\n</div>\n</section>\n"
  }

  /// The page's whole style: system fonts only, nothing fetched.
  static let pageStyle = """
    body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1b1b1b; max-width: 1232px; }
    h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
    .summary, .legend { color: #444; margin: 0 0 8px; }
    .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
    ol.failing { padding-left: 24px; margin: 0; } ol.failing li { margin: 0 0 6px; }
    .count { font-weight: 600; display: inline-block; min-width: 64px; }
    .why { color: #555; font-size: 13px; overflow-wrap: anywhere; }
    ul.plain { padding-left: 20px; }
    table.chapters { border-collapse: collapse; }
    table.chapters th, table.chapters td { text-align: left; padding: 3px 12px 3px 0; white-space: nowrap; }
    table.chapters td.stuck { font-weight: 600; color: #8a4b00; } .note { color: #555; font-size: 12px; font-weight: 400; }
    .bar { display: inline-block; width: 120px; height: 10px; background: #e4e4e4; vertical-align: middle; }
    .bar span { display: block; height: 100%; background: #2e7d32; }
    .scroll { overflow: auto; max-height: 80vh; border: 1px solid #ccc; position: relative; }
    table.heat { border-collapse: separate; border-spacing: 0; font-size: 12px; }
    table.heat th, table.heat td { text-align: center; min-width: 18px; height: 18px; padding: 0 1px; border-bottom: 1px solid #fff; }
    table.heat thead th { position: sticky; background: #f4f4f4; font-weight: 600; z-index: 1; }
    table.heat thead tr:first-child th { top: 0; } table.heat thead tr:nth-child(2) th { top: 19px; }
    table.heat .who { position: sticky; left: 0; background: #fff; text-align: left; padding: 0 8px; white-space: nowrap; z-index: 2; }
    table.heat thead .who { z-index: 3; background: #f4f4f4; }
    .score { color: #555; } .review { color: #8a4b00; }
    .passed { background: #c8e6c9; color: #1b5e20; } .failed { background: #ef9a9a; color: #7f0000; }
    .crashed { background: #ce93d8; color: #4a148c; } .timedOut { background: #ffcc80; color: #6d3b00; }
    .notCompiled { background: #90a4ae; color: #102027; } .notHandedIn { background: #eeeeee; color: #555; }
    .noResult { background: #fff59d; color: #5d4d00; }
    .legend span { display: inline-block; min-width: 16px; text-align: center; }
    @media (max-width: 640px) {
      body { margin: 12px; }
      table.chapters th, table.chapters td { white-space: normal; padding-right: 8px; vertical-align: top; }
      .bar { width: 40px; display: block; margin-bottom: 2px; }
    }
    """
}

extension ClassReports.Column {
  /// The check's place in its chapter: `3` for `04.3`.
  var position: Int { Int(number.split(separator: ".").last ?? "") ?? 0 }
}
