import CheckTranscript
import Foundation

/// Draws a ``Timeline`` as a self-contained SVG: lanes across the top, one
/// row per event down the page, the event's own words in a column on the
/// right, and what should not have happened in red.
///
/// Every size is fixed here, in a monospaced font whose advance is known
/// (East Asian wide characters and emoji take two columns), so
/// labels are cut to fit between the lanes they join instead of overlapping
/// a neighbour; the full words are always in the column on the right.
struct TimelineDrawing: Sendable {
  var timeline: Timeline
  /// Shown above the lanes.
  var title: String
  /// Whether each event's full words are written in a column on the right.
  /// A slide leaves them out (the arrows keep their labels, the speaker's
  /// notes say the rest), so that the lanes can be drawn large.
  var showsWords: Bool

  init(_ timeline: Timeline, title: String, showsWords: Bool = true) {
    self.timeline = timeline
    self.title = title
    self.showsWords = showsWords
  }

  // Geometry, in pixels.
  static let fontSize = 12.0
  /// The advance of one character of a 12 px monospaced font (0.6 em).
  static let advance = 7.2
  static let margin = 16.0
  static let numberWidth = 32.0
  static let laneGap = 160.0
  static let lineHeight = 15.0
  static let rowPadding = 11.0
  static let textColumnCharacters = 64
  static let titleHeight = 26.0
  static let headerHeight = 30.0

  static let colors: [Timeline.Step.Kind: String] = [
    .call: "#1f6feb", .answer: "#1a7f37", .publish: "#8250df", .cancel: "#bc4c00", .tick: "#6e7781",
    .note: "#57606a",
  ]
  static let wrongColor = "#cf222e"

  /// How wide a slide draws its picture (`![w:1100]`), and the size its
  /// text must have there to read from the back of a room.
  static let slideDrawnWidth = 1100.0
  static let slideTextPixels = 20.0
  /// The widest a slide's picture may be: its 12 px text, drawn
  /// ``slideDrawnWidth`` wide, then reads at ``slideTextPixels``.
  static var slideWidth: Double { (fontSize * slideDrawnWidth / slideTextPixels).rounded(.down) }

  /// The distance between two lanes: ``laneGap`` on a page; on a slide,
  /// the lanes share ``slideWidth``, so that every slide's picture is as
  /// wide, and its labels need as few lines as they can.
  var gap: Double {
    guard !showsWords, !timeline.lanes.isEmpty else { return Self.laneGap }
    return ((Self.slideWidth - 2 * Self.margin - Self.numberWidth) / Double(timeline.lanes.count)).rounded(
      .down)
  }

  /// An arrow's or a tick's label, in the lines it is drawn in between
  /// `span` pixels: on a slide wrapped, never cut (the room has no column of
  /// words to read the rest in); on a page cut to one line, the full words
  /// being in the column on the right.
  func labelLines(_ label: String, span: Double) -> [String] {
    let columns = Int((span - 16) / Self.advance)
    guard !showsWords else { return [Self.cut(label, to: columns)] }
    guard columns > 0, !label.isEmpty else { return [""] }
    return Self.wrap(label, columns: columns)
  }

  /// The label lines of each step, as ``labelLines(_:span:)`` draws them.
  func labels(laneX: [Timeline.Lane: Double]) -> [[String]] {
    timeline.steps.map { step in
      let from = laneX[step.from]!
      switch step.kind {
      case .tick: return labelLines(step.label, span: gap + 4)
      case .note: return [""]
      case .call, .answer, .publish, .cancel:
        return labelLines(step.label, span: abs((step.to.flatMap { laneX[$0] } ?? from) - from))
      }
    }
  }

  /// How tall the picture is, in its own pixels (the SVG's `height`).
  var height: Double {
    svg.firstMatch(of: /height="([0-9.]+)"/).flatMap { Double($0.1) } ?? 0
  }

  /// The tallest a slide's picture may be, in its own pixels: drawn
  /// ``slideDrawnWidth`` wide, it leaves room for the slide's heading and a
  /// line under it.
  static let slideHeightLimit = 300.0

  /// A slide's picture of `timeline`: the rows leading to the first that
  /// should not have happened (``Timeline/excerpt(rows:)``), six of them, or
  /// fewer when their wrapped labels would make the picture taller than
  /// ``slideHeightLimit``.
  static func slideExcerpt(of timeline: Timeline) -> Timeline {
    for rows in stride(from: 6, to: 2, by: -1) {
      let excerpt = timeline.excerpt(rows: rows)
      if TimelineDrawing(excerpt, title: "", showsWords: false).height <= slideHeightLimit { return excerpt }
    }
    return timeline.excerpt(rows: 3)
  }

  /// The SVG document.
  var svg: String {
    let lanes = timeline.lanes
    let laneX = Dictionary(
      uniqueKeysWithValues: lanes.enumerated().map { index, lane in
        (lane, Self.margin + Self.numberWidth + gap * (Double(index) + 0.5))
      })
    let lanesRight = Self.margin + Self.numberWidth + gap * Double(lanes.count)
    let textX = lanesRight + 12
    let rows = timeline.steps.map {
      showsWords ? Self.wrap($0.text.trimmingCharacters(in: .whitespaces)) : [""]
    }
    let labels = labels(laneX: laneX)
    // A row is as tall as its words, or on a slide as its label's lines.
    let rowLines = zip(rows, labels).map { showsWords ? $0.count : max(1, $1.count) }
    let longest = rows.flatMap { $0 }.map { Self.columns($0) }.max() ?? 0
    let width =
      showsWords
      ? max((textX + Double(max(longest, 20)) * Self.advance + Self.margin).rounded(.up), Self.legendWidth)
      : (lanesRight + Self.margin).rounded(.up)
    let legendRows = Self.legendRows(within: width - 2 * Self.margin - Self.numberWidth)
    // A slide's heading names the picture: no title line in it.
    let titleHeight = showsWords ? Self.titleHeight : 0
    let top = Self.margin + titleHeight + Self.headerHeight + 12
    var y = top
    var rowTops: [Double] = []
    for lines in rowLines {
      rowTops.append(y)
      y += Double(lines) * Self.lineHeight + Self.rowPadding
    }
    let bottom = y
    let legendY = bottom + 22
    let height = (legendY + Double(legendRows.count - 1) * Self.legendLineHeight + Self.margin).rounded(.up)

    var out: [String] = []
    out.append(
      """
      <svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="\(Self.number(width))" height="\(Self.number(height))" \
      viewBox="0 0 \(Self.number(width)) \(Self.number(height))" font-family="ui-monospace, 'DejaVu Sans Mono', Menlo, monospace" \
      font-size="\(Self.number(Self.fontSize))" role="img" aria-label="\(Self.escape(title))" data-steps="\(timeline.steps.count)">
      <defs>\(Self.colors.sorted { $0.key.rawValue < $1.key.rawValue }.map { Self.marker($0.key.rawValue, $0.value) }.joined())\
      \(Self.marker("wrong", Self.wrongColor))</defs>
      <rect width="100%" height="100%" fill="#ffffff"/>
      """)
    if showsWords {
      out.append(
        "<text class=\"title\" x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(Self.margin + 14))\" font-size=\"14\" font-weight=\"bold\" fill=\"#24292f\">\(Self.escape(Self.cut(title, to: Int((width - 2 * Self.margin) / 8.4))))</text>"
      )
    }
    // Rows that should not have happened, behind everything.
    for (index, step) in timeline.steps.enumerated() where step.isWrong {
      out.append(
        "<rect x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(rowTops[index] - 4))\" width=\"\(Self.number(width - 2 * Self.margin))\" height=\"\(Self.number(Double(rowLines[index]) * Self.lineHeight + Self.rowPadding - 3))\" fill=\"#ffebe9\"/>"
      )
    }
    // Lanes.
    let headerTop = Self.margin + titleHeight
    for lane in lanes {
      let x = laneX[lane]!
      let name = Self.cut(lane.name, to: Int((gap - 16) / Self.advance))
      let boxWidth = Double(Self.columns(name)) * Self.advance + 14
      let fill = lane.role == .code ? "#ddf4ff" : "#f6f8fa"
      out.append(
        "<line x1=\"\(Self.number(x))\" y1=\"\(Self.number(headerTop + Self.headerHeight - 6))\" x2=\"\(Self.number(x))\" y2=\"\(Self.number(bottom))\" stroke=\"#d0d7de\" stroke-width=\"1.5\"/>"
      )
      out.append(
        "<rect x=\"\(Self.number(x - boxWidth / 2))\" y=\"\(Self.number(headerTop))\" width=\"\(Self.number(boxWidth))\" height=\"\(Self.number(Self.headerHeight - 6))\" rx=\"4\" class=\"lane-box\" fill=\"\(fill)\" stroke=\"#8c959f\"/>"
      )
      out.append(
        "<text class=\"lane\" data-span=\"\(Self.number(x - gap / 2)) \(Self.number(x + gap / 2))\" x=\"\(Self.number(x))\" y=\"\(Self.number(headerTop + 16))\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"#24292f\">\(Self.escape(name))</text>"
      )
    }
    // Events: one group each, which the browser check counts.
    for (index, step) in timeline.steps.enumerated() {
      out.append("<g class=\"step\" data-number=\"\(step.number)\" data-kind=\"\(step.kind.rawValue)\">")
      defer { out.append("</g>") }
      let rowTop = rowTops[index]
      // The arrow under its label's lines.
      let labelLines = labels[index]
      let arrowY = rowTop + 8 + Double(max(0, labelLines.count - 1)) * Self.lineHeight
      let color = step.isWrong ? Self.wrongColor : Self.colors[step.kind]!
      let marker = step.isWrong ? "wrong" : step.kind.rawValue
      out.append(
        "<text class=\"number\" x=\"\(Self.number(Self.margin + Self.numberWidth - 6))\" y=\"\(Self.number(rowTop + 12))\" text-anchor=\"end\" fill=\"#6e7781\">\(step.number)</text>"
      )
      let from = laneX[step.from]!
      switch step.kind {
      case .tick:
        let left = laneX[lanes.first!]!
        out.append(
          "<line x1=\"\(Self.number(left))\" y1=\"\(Self.number(arrowY))\" x2=\"\(Self.number(from))\" y2=\"\(Self.number(arrowY))\" stroke=\"\(color)\" stroke-dasharray=\"2 4\"/>"
        )
        // The clock's words in a pill on the lane, its lines above the last.
        let labelWidth = Double(labelLines.map { Self.columns($0) }.max() ?? 0) * Self.advance + 8
        let pillTop = arrowY - 8 - Double(labelLines.count - 1) * Self.lineHeight
        out.append(
          "<rect x=\"\(Self.number(from - labelWidth / 2))\" y=\"\(Self.number(pillTop))\" width=\"\(Self.number(labelWidth))\" height=\"\(Self.number(arrowY + 8 - pillTop))\" rx=\"8\" fill=\"#eaeef2\" stroke=\"\(color)\"/>"
        )
        for (line, label) in labelLines.enumerated() {
          let lineY = arrowY + 4 - Double(labelLines.count - 1 - line) * Self.lineHeight
          out.append(
            "<text class=\"label\" data-span=\"\(Self.number(from - gap / 2)) \(Self.number(from + gap / 2))\" x=\"\(Self.number(from))\" y=\"\(Self.number(lineY))\" text-anchor=\"middle\" fill=\"#24292f\">\(Self.escape(label))</text>"
          )
        }
      case .note:
        out.append(
          "<circle cx=\"\(Self.number(from))\" cy=\"\(Self.number(arrowY))\" r=\"\(step.isWrong ? 6 : 4)\" fill=\"\(color)\"/>"
        )
      case .call, .answer, .publish, .cancel:
        let to = step.to.flatMap { laneX[$0] } ?? from
        let direction: Double = to >= from ? 1 : -1
        let dashed = step.kind == .answer || step.kind == .cancel ? " stroke-dasharray=\"6 3\"" : ""
        let end = to - direction * 3
        out.append(
          "<line x1=\"\(Self.number(from))\" y1=\"\(Self.number(arrowY))\" x2=\"\(Self.number(end))\" y2=\"\(Self.number(arrowY))\" stroke=\"\(color)\" stroke-width=\"\(step.isWrong ? 2.5 : 1.5)\"\(dashed) marker-end=\"url(#\(marker))\"/>"
        )
        if step.kind == .cancel {
          out.append(
            "<text x=\"\(Self.number(to))\" y=\"\(Self.number(arrowY + 5))\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\" fill=\"\(color)\">✕</text>"
          )
        }
        // The label sits above the arrow and never reaches past the lanes it joins.
        for (line, label) in labelLines.enumerated() where !label.isEmpty {
          let lineY = arrowY - 4 - Double(labelLines.count - 1 - line) * Self.lineHeight
          out.append(
            "<text class=\"label\" data-span=\"\(Self.number(min(from, to))) \(Self.number(max(from, to)))\" x=\"\(Self.number((from + to) / 2))\" y=\"\(Self.number(lineY))\" text-anchor=\"middle\" fill=\"\(color)\">\(Self.escape(label))</text>"
          )
        }
      }
      for (line, text) in rows[index].enumerated() where !text.isEmpty {
        out.append(
          "<text class=\"event\" x=\"\(Self.number(textX))\" y=\"\(Self.number(rowTop + 12 + Double(line) * Self.lineHeight))\" fill=\"\(step.isWrong ? Self.wrongColor : "#24292f")\"\(step.isWrong ? " font-weight=\"bold\"" : "")>\(Self.escape(text))</text>"
        )
      }
    }
    // The legend, in as many lines as the picture's width needs.
    var x = Self.margin + Self.numberWidth
    var lineY = legendY
    for (index, (kind, word)) in Self.legend.enumerated() {
      if legendRows.dropFirst().contains(where: { $0 == index }) {
        x = Self.margin + Self.numberWidth
        lineY += Self.legendLineHeight
      }
      let color = Self.colors[kind]!
      let dashed =
        kind == .answer || kind == .cancel
        ? " stroke-dasharray=\"6 3\"" : kind == .tick ? " stroke-dasharray=\"2 4\"" : ""
      out.append(
        "<line x1=\"\(Self.number(x))\" y1=\"\(Self.number(lineY - 4))\" x2=\"\(Self.number(x + 28))\" y2=\"\(Self.number(lineY - 4))\" stroke=\"\(color)\" stroke-width=\"1.5\"\(dashed)\(kind == .tick ? "" : " marker-end=\"url(#\(kind.rawValue))\"")/>"
      )
      out.append(
        "<text class=\"legend\" x=\"\(Self.number(x + 34))\" y=\"\(Self.number(lineY))\" fill=\"#57606a\">\(word)</text>"
      )
      x += Self.legendEntryWidth(word)
    }
    if legendRows.dropFirst().contains(Self.legend.count) {
      x = Self.margin + Self.numberWidth
      lineY += Self.legendLineHeight
    }
    out.append(
      "<rect x=\"\(Self.number(x))\" y=\"\(Self.number(lineY - 11))\" width=\"14\" height=\"14\" fill=\"#ffebe9\" stroke=\"\(Self.wrongColor)\"/>"
    )
    out.append(
      "<text class=\"legend\" x=\"\(Self.number(x + 20))\" y=\"\(Self.number(lineY))\" fill=\"\(Self.wrongColor)\">\(Self.wrongWords)</text>"
    )
    out.append("</svg>")
    return out.joined(separator: "\n") + "\n"
  }

  static let legend: [(Timeline.Step.Kind, String)] = [
    (.call, "call"), (.answer, "answer"), (.publish, "shown"), (.cancel, "cancel"), (.tick, "clock"),
  ]
  static let wrongWords = "should not have happened"

  static func legendEntryWidth(_ word: String) -> Double { 34 + Double(word.count) * advance + 22 }

  /// The width of the legend's last entry, the red box and its words.
  static var wrongEntryWidth: Double { 20 + Double(wrongWords.count) * advance }

  /// The distance between two lines of the legend.
  static let legendLineHeight = 20.0

  /// Where the legend's lines start, as indices of its entries (the red
  /// box is entry ``legend``'s count), so that each line fits `width`.
  static func legendRows(within width: Double) -> [Int] {
    let widths = legend.map { legendEntryWidth($0.1) } + [wrongEntryWidth]
    var starts = [0]
    var used = 0.0
    for (index, entry) in widths.enumerated() {
      if used > 0, used + entry > width {
        starts.append(index)
        used = 0
      }
      used += entry
    }
    return starts
  }

  /// The legend's width: a picture is never narrower.
  static var legendWidth: Double {
    (margin + numberWidth + legend.map { legendEntryWidth($0.1) }.reduce(0, +) + 20
      + Double(wrongWords.count) * advance + margin).rounded(.up)
  }

  private static func marker(_ id: String, _ color: String) -> String {
    "<marker id=\"\(id)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"9\" markerHeight=\"9\" markerUnits=\"userSpaceOnUse\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"\(color)\"/></marker>"
  }

  /// How many columns of the monospaced font `character` takes: two for
  /// East Asian wide characters and emoji, one for the rest.
  static func columns(_ character: Character) -> Int {
    guard let scalar = character.unicodeScalars.first else { return 0 }
    if scalar.properties.isEmojiPresentation { return 2 }
    switch scalar.value {
    case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x1F300...0x1FAFF, 0x20000...0x3FFFD:
      return 2
    default:
      return 1
    }
  }

  /// The columns `text` takes in the monospaced font.
  static func columns<Text: StringProtocol>(_ text: Text) -> Int { text.reduce(0) { $0 + columns($1) } }

  /// The longest start of `text` that fits in `width` columns.
  static func prefix<Text: StringProtocol>(_ text: Text, columns width: Int) -> Text.SubSequence {
    var used = 0
    var end = text.startIndex
    while end < text.endIndex, used + columns(text[end]) <= width {
      used += columns(text[end])
      end = text.index(after: end)
    }
    return text[..<end]
  }

  /// `text` cut to `count` columns, with an ellipsis when cut.
  static func cut(_ text: String, to count: Int) -> String {
    guard count > 0 else { return "" }
    guard columns(text) > count else { return text }
    return count == 1 ? "…" : String(prefix(text, columns: count - 1)) + "…"
  }

  /// The event's words in lines of at most `width` columns, broken at
  /// spaces, a word longer than a line broken where the line ends.
  static func wrap(_ text: String, columns width: Int = textColumnCharacters) -> [String] {
    let textColumnCharacters = width
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
      if !line.isEmpty, columns(line) + 1 + columns(word) > textColumnCharacters {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
      while columns(line) > textColumnCharacters {
        let head = breakable(prefix(line, columns: textColumnCharacters))
        lines.append(String(head))
        line = String(line[head.endIndex...])
      }
    }
    lines.append(line)
    return lines
  }

  /// The longest start of `head` that ends where code reads well broken:
  /// before a `.` or `(`, after a `,` or `:`, or all of it when none does
  /// (`OrderServerError.unavailable` breaks before `.unavailable`).
  static func breakable(_ head: Substring) -> Substring {
    var index = head.endIndex
    while index > head.index(head.startIndex, offsetBy: min(4, head.count)) {
      let before = head[head.index(before: index)]
      if index < head.endIndex, ".(".contains(head[index]) { return head[..<index] }
      if ",:".contains(before) { return head[..<index] }
      index = head.index(before: index)
    }
    return head
  }

  static func number(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
  }

  /// `text` safe inside XML: markup escaped, and control characters (which
  /// XML does not allow, and which an SVG file would fail to parse) replaced.
  static func escape(_ text: String) -> String {
    let printable = String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "\u{FFFD}" : $0 }))
    return printable.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }
}
