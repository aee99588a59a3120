import Foundation
import WorkshopCore

/// The reports `workshop grade` writes and prints: per submission
/// `results.json` (Gradescope) and `junit.xml`, for the class `class.csv` and
/// `summary.md`, and the lines and table on the terminal.
struct ClassReports: Sendable {
  var course: Workspace
  var style: Style
  /// The language of the reports a person reads (`grade --lang`): Gradescope's
  /// output and test names, JUnit's messages, `summary.md` and the terminal.
  /// Check names and recorded values stay as they are; `class.csv` stays in
  /// English, a spreadsheet's columns.
  var words: Language = .english

  init(course: Workspace, style: Style, words: Language = .english) {
    self.course = course
    self.style = style
    self.words = words
    text = CourseText(workspace: course, language: words)
  }

  /// The course's titles in `words`.
  var text: CourseText

  /// A check as a learner's report names it: in Chinese, its Chinese name
  /// and its own, which Xcode and `swift test` show.
  private func checkName(_ item: ClassResult.Item) -> String {
    text.checkName(item.name, in: item.chapter).map { "\($0)（\(item.name)）" } ?? item.name
  }

  /// A chapter's number and title as a learner's report names it: in Chinese,
  /// with the English title too, as the chapter's folder and README have it.
  private func chapterName(_ chapter: Curriculum.Chapter) -> String {
    let title = text.title(chapter)
    return "\(chapter.paddedNumber) \(title)" + (title == chapter.title ? "" : "（\(chapter.title)）")
  }

  // MARK: - Gradescope

  /// Gradescope's `results.json`, as its autograder specification describes
  /// it: the score, and one test per item with its points, status and output.
  struct Gradescope: Codable, Equatable {
    struct Test: Codable, Equatable {
      var name: String
      var number: String
      var score: Double
      var max_score: Double
      var status: String
      var output: String
      var tags: [String]
    }

    var score: Double
    var execution_time: Int
    var output: String
    var tests: [Test]
  }

  func gradescope(_ result: ClassResult) -> Gradescope {
    Gradescope(
      score: result.score, execution_time: Int(result.grade.seconds.rounded()),
      output: overview(result),
      tests: result.items.map { item in
        Gradescope.Test(
          name: chapterName(item.chapter) + words(": ", "：") + checkName(item), number: item.number,
          score: item.score, max_score: item.maxScore,
          status: item.status == .passed ? "passed" : "failed",
          output: item.output, tags: [item.chapter.folder])
      })
  }

  /// What a person reads first about a submission: its score, what needs
  /// review and what was ignored.
  func overview(_ result: ClassResult) -> String {
    let grade = result.grade
    var lines: [String] = []
    if let why = grade.notGraded {
      lines.append(words("Not graded: ", "未评分：") + why)
    } else {
      let (score, maximum) = (format(result.score), format(result.maxScore))
      lines.append(
        words(
          "\(result.passed) of \(result.total) checks pass (\(score) of \(maximum) points).",
          "\(result.total) 项检查通过 \(result.passed) 项（\(maximum) 分中得 \(score) 分）。"))
      for chapter in result.chapters {
        lines.append("  " + chapterName(chapter.chapter) + words(": ", "：") + chapter.cell(words))
      }
    }
    if !grade.flags.isEmpty {
      lines.append("")
      lines.append(
        words(
          "Needs review: code no exercise needs, for a person to look at:", "需要人工复核：有任何练习都用不到的代码，请人看一看："))
      lines += grade.flags.map { "  " + $0.description }
    }
    if !grade.ignored.isEmpty {
      lines.append("")
      lines.append(
        words(
          "Ignored (only the Swift files in Chapters/NN-Name/ are graded):",
          "已忽略（只有 Chapters/NN-Name/ 里的 Swift 文件会被评分）："))
      lines += grade.ignored.prefix(50).map { "  " + $0 }
      if grade.ignored.count > 50 {
        lines.append(
          words("  … and \(grade.ignored.count - 50) more", "  ……还有 \(grade.ignored.count - 50) 个"))
      }
    }
    return lines.joined(separator: "\n")
  }

  func gradescopeJSON(_ result: ClassResult) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(gradescope(result))
  }

  // MARK: - JUnit

  /// JUnit XML: one test suite per chapter, one test case per item; a
  /// failed check is a failure, a crash, a time limit, a compile error or a
  /// chapter not handed in an error, each with its message.
  func junit(_ result: ClassResult) -> String {
    let grade = result.grade
    var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    let failures = result.items.filter { $0.status == .failed }.count
    var errors = result.items.filter { $0.status == .error }.count
    var suites = result.chapters.map { chapter -> String in
      let failed = chapter.items.filter { $0.status == .failed }.count
      let errored = chapter.items.filter { $0.status == .error }.count
      let seconds = chapter.items.reduce(0) { $0 + $1.seconds }
      var suite =
        "  <testsuite name=\"\(escape(chapter.chapter.folder))\" tests=\"\(chapter.items.count)\" failures=\"\(failed)\" errors=\"\(errored)\" skipped=\"0\" time=\"\(Self.time(seconds))\">\n"
      suite += "    <properties>\n"
      suite += "      <property name=\"state\" value=\"\(escape(chapter.state.rawValue))\"/>\n"
      suite += "    </properties>\n"
      for item in chapter.items {
        suite +=
          "    <testcase name=\"\(escape(item.name))\" classname=\"\(escape(grade.name + "." + chapter.chapter.folder))\" time=\"\(Self.time(item.seconds))\""
        switch item.status {
        case .passed:
          suite += "/>\n"
        case .failed, .error:
          let element = item.status == .failed ? "failure" : "error"
          suite += ">\n      <\(element) message=\"\(escape(firstLine(of: item.output)))\">"
          suite += escape(item.output, attribute: false) + "</\(element)>\n    </testcase>\n"
        }
      }
      return suite + "  </testsuite>\n"
    }
    if let why = grade.notGraded {
      errors = 1
      suites = [
        "  <testsuite name=\"submission\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n"
          + "    <testcase name=\"The submission can be graded\" classname=\"\(escape(grade.name))\" time=\"0\">\n"
          + "      <error message=\"\(escape(firstLine(of: why)))\">\(escape(why, attribute: false))</error>\n"
          + "    </testcase>\n  </testsuite>\n"
      ]
    }
    // The total adds up its suites, as JUnit readers sum them (the checks
    // of a chapter run side by side, so this is more than the grade took).
    let total = grade.notGraded == nil ? result.chapters.flatMap(\.items).reduce(0) { $0 + $1.seconds } : 0
    xml +=
      "<testsuites name=\"\(escape(grade.name))\" tests=\"\(max(result.total, grade.notGraded == nil ? 0 : 1))\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(Self.time(total))\">\n"
    return xml + suites.joined() + "</testsuites>\n"
  }

  /// A JUnit `time`: seconds, to the microsecond (a correct check takes
  /// well under a millisecond).
  static func time(_ seconds: Double) -> String {
    String(format: "%.6f", seconds)
  }

  /// Text as XML character data or an attribute value: markup escaped, and
  /// characters XML 1.0 cannot hold (terminal control codes) dropped.
  func escape(_ text: String, attribute: Bool = true) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "\n": escaped += attribute ? "&#10;" : "\n"
      case "\t", "\r": escaped += "&#\(scalar.value);"
      default:
        let value = scalar.value
        guard value >= 0x20, !(0xD800...0xDFFF).contains(value), value != 0xFFFE, value != 0xFFFF else {
          continue
        }
        escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }

  // MARK: - The class

  /// `class.csv`: one row per submission (RFC 4180).
  func csv(_ results: [ClassResult]) -> String {
    var rows: [[String]] = [
      ["submission", "checks passed", "checks total"]
        + course.curriculum.chapters.map { "\($0.paddedNumber) \($0.title)" }
        + ["score", "max score", "needs review", "not graded"]
    ]
    for result in results {
      let grade = result.grade
      if let why = grade.notGraded {
        rows.append(
          [grade.name, "", ""] + course.curriculum.chapters.map { _ in "not graded" }
            + ["", "", "\(grade.flags.count)", firstLine(of: why)])
        continue
      }
      rows.append(
        [grade.name, "\(result.passed)", "\(result.total)"] + result.chapters.map(\.cell)
          + [format(result.score), format(result.maxScore), "\(grade.flags.count)", ""])
    }
    return rows.map { $0.map(csvField).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
  }

  private func csvField(_ field: String) -> String {
    // A leading = + - @ makes spreadsheets run a formula: quote it as text.
    let guarded = field.first.map { "=+-@".contains($0) } == true ? "'" + field : field
    guard guarded.contains(where: { ",\"\r\n".contains($0) }) else { return guarded }
    return "\"" + guarded.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// One line for a submission, printed as soon as it is graded.
  func line(_ result: ClassResult, nameWidth: Int) -> String {
    let grade = result.grade
    let name = pad(grade.name, nameWidth)
    let time = style.dim(String(format: "%5.1f s", grade.seconds))
    let review =
      grade.flags.isEmpty
      ? "" : style.yellow(words(" · needs review (\(grade.flags.count))", " · 需要复核（\(grade.flags.count)）"))
    guard grade.notGraded == nil else {
      return "  " + style.mark(false) + " " + name + style.red(words("not graded: ", "未评分："))
        + firstLine(of: grade.notGraded!)
        + review
    }
    let done = result.chapters.filter { $0.state == .done }.count
    var notes = [
      words("\(done) of \(result.chapters.count) chapters done", "\(result.chapters.count) 章完成 \(done) 章")
    ]
    for state in [ChapterReport.State.doesNotCompile, .crashed, .timedOut, .notHandedIn, .raceCheckNotRun] {
      let count = result.chapters.filter { $0.state == state }.count
      if count > 0 { notes.append(words("\(count) \(state.rawValue)", "\(count) 章\(state.label(words))")) }
    }
    return "  " + style.mark(true) + " " + name
      + pad("\(result.passed)/\(result.total)", 10) + pad(notes.joined(separator: " · "), 44) + time + review
  }

  /// The class table the terminal shows at the end.
  func table(_ results: [ClassResult]) -> String {
    let width = max(10, results.map { Columns.width(of: $0.grade.name) }.max() ?? 0) + 2
    var lines: [String] = []
    let graded = results.filter { $0.grade.notGraded == nil }
    let review = results.filter { !$0.grade.flags.isEmpty }.count
    lines.append(
      words(
        style.bold("Class: \(results.count) submission\(results.count == 1 ? "" : "s")")
          + " · \(graded.count) graded · \(results.count - graded.count) not graded · \(review) need\(review == 1 ? "s" : "") review",
        style.bold("全班：\(results.count) 份提交")
          + " · 已评分 \(graded.count) 份 · 未评分 \(results.count - graded.count) 份 · 需要复核 \(review) 份"))
    lines.append("")
    lines.append(
      "  "
        + style.dim(
          pad(words("Submission", "提交"), width) + pad(words("Checks", "检查"), 10)
            + course.curriculum.chapters.map { pad($0.paddedNumber, 6) }.joined() + words("Review", "复核")))
    for result in results {
      var row = pad(result.grade.name, width)
      if result.grade.notGraded != nil {
        row += pad("–", 10) + style.red(pad(words("not graded", "未评分"), course.curriculum.chapters.count * 6))
      } else {
        row += pad("\(result.passed)/\(result.total)", 10)
        row += result.chapters.map { chapter -> String in
          let cell = shortCell(chapter)
          let padded = pad(cell, 6)
          return chapter.state == .done ? style.green(padded) : padded
        }.joined()
      }
      row +=
        result.grade.flags.isEmpty
        ? "" : style.yellow(words("\(result.grade.flags.count) flags", "\(result.grade.flags.count) 处"))
      lines.append("  " + row)
    }
    if !graded.isEmpty {
      let median = Self.median(graded.map { Double($0.passed) / Double(max(1, $0.total)) })
      lines.append("")
      let percent = Int((median * 100).rounded())
      lines.append(
        style.dim(
          words(
            "Median \(percent) % of checks · ✓ done · CE does not compile · CR crashed · TO timed out · – not handed in · R race check not run",
            "检查通过率中位数 \(percent) % · ✓ 已完成 · CE 编译失败 · CR 崩溃 · TO 超时 · – 未提交 · R 竞争检查未运行")
        ))
    }
    return lines.joined(separator: "\n")
  }

  /// The median of `values`: the middle one, or the mean of the two middle
  /// ones of an even count (of 0.40, 0.43, 0.49 and 0.60, 0.46); 0 for none.
  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
  }

  /// The summary as a Markdown table, for a GitHub run's page.
  func markdown(_ results: [ClassResult]) -> String {
    var lines = [
      "## \(text.courseTitle)" + words(": grades", "：成绩"), "",
      words("| Submission | Checks | ", "| 提交 | 检查 | ")
        + course.curriculum.chapters.map(\.paddedNumber).joined(separator: " | ")
        + words(" | Needs review |", " | 需要复核 |"),
      "| --- | --- | " + course.curriculum.chapters.map { _ in "---" }.joined(separator: " | ") + " | --- |",
    ]
    for result in results {
      let grade = result.grade
      let name = markdownCell(grade.name)
      let flags = grade.flags.isEmpty ? "" : "\(grade.flags.count)"
      if let why = grade.notGraded {
        lines.append(
          "| \(name) | " + words("not graded: ", "未评分：") + "\(markdownCell(firstLine(of: why))) | "
            + course.curriculum.chapters.map { _ in "" }.joined(separator: " | ") + " | \(flags) |")
      } else {
        lines.append(
          "| \(name) | \(result.passed)/\(result.total) | "
            + result.chapters.map(shortCell).joined(separator: " | ") + " | \(flags) |")
      }
    }
    lines.append("")
    lines.append(
      words(
        "✓ done · CE does not compile · CR crashed · TO timed out · – not handed in · R race check not run; otherwise checks passed/total.",
        "✓ 已完成 · CE 编译失败 · CR 崩溃 · TO 超时 · – 未提交 · R 竞争检查未运行；其余为 通过数/检查总数。")
    )
    let flagged = results.filter { !$0.grade.flags.isEmpty }
    if !flagged.isEmpty {
      lines.append("")
      lines.append(words("### Needs review", "### 需要复核"))
      for result in flagged {
        lines.append("")
        lines.append("**\(markdownCell(result.grade.name))**")
        lines.append("")
        lines += result.grade.flags.prefix(20).map { "- `\($0.location)`: \($0.reason)" }
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private func shortCell(_ chapter: ClassResult.Chapter) -> String {
    switch chapter.state {
    case .done: "✓"
    case .doesNotCompile: "CE"
    case .crashed: "CR"
    case .timedOut: "TO"
    case .notHandedIn: "–"
    case .raceCheckNotRun: "R"
    default: "\(chapter.passed)/\(chapter.items.count)"
    }
  }

  private func markdownCell(_ text: String) -> String {
    text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
  }

  private func format(_ points: Double) -> String {
    points == points.rounded() ? String(Int(points)) : String(format: "%.2f", points)
  }

  private func pad(_ text: String, _ width: Int) -> String { Columns.padded(text, to: width) }

  // MARK: - Writing

  /// Writes `data` to `url` whole or not at all: a temporary file beside it,
  /// renamed over it.
  static func writeAtomically(_ data: Data, to url: URL) throws {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let temporary = url.deletingLastPathComponent().appendingPathComponent(
      ".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
    try data.write(to: temporary)
    if rename(temporary.path, url.path) != 0 {
      let code = errno
      try? FileManager.default.removeItem(at: temporary)
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, "errno": code])
    }
  }
}
