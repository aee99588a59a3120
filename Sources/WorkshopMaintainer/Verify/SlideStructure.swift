import Foundation
import WorkshopCore

/// The slides every deck has, in the same words, so that an instructor finds
/// the same parts in every chapter: the title, what users see (the bug), the
/// broken code, a timeline, "Your turn", "The checks" and the takeaways; and
/// "The checks" slides list exactly the chapter's checks, in their own words;
/// and the counts a deck says of them agree with the course: "note which
/// seven checks fail" is the starter's number of failing checks, and in the
/// notes of "The checks" slides, "Nine checks" and "The starter passes four"
/// count the whole chapter or the checks those slides list.
///
/// ```
/// Slides/11-AsyncStreams.md: no "## Timeline: …" slide
/// Slides/07-CancellableBridges.md: "The checks" does not list "Ends the stream once"
/// Slides/07-CancellableBridges.md: says "which four checks fail", but the starter fails 5
/// ```
struct SlideStructure {
  var workspace: Workspace

  /// A part every deck has, and the headings that are it.
  struct Part {
    var name: String
    var pattern: Regex<Substring>
  }

  nonisolated(unsafe) static let parts: [Part] = [
    Part(name: "# Chapter NN: …", pattern: #/^# Chapter \d\d: /#),
    Part(name: "## What users see", pattern: #/^## What (?:users|teams) see/#),
    Part(
      name: "## The broken code",
      pattern:
        #/^## (?:The broken code|Exercise \d: the broken|The bridge, the way it was written|The broken counter|The test everyone writes first)/#
    ),
    Part(name: "## Timeline: …", pattern: #/^## Timelines?: /#),
    Part(name: "## Your turn", pattern: #/^## Your turn/#),
    Part(name: "## The checks", pattern: #/^## The checks/#),
    Part(name: "## Takeaways", pattern: #/^## Takeaways/#),
  ]

  /// What is wrong with the decks, one line each. `checks` holds each
  /// chapter's check names, from its graded solution; a chapter missing
  /// from it is not compared.
  func problems(checks: [Int: [String]]) -> [String] {
    var problems: [String] = []
    for chapter in workspace.curriculum.chapters {
      let deck = workspace.slidesFile(chapter)
      guard let text = try? String(contentsOf: workspace.url(deck), encoding: .utf8) else {
        problems.append("\(deck): missing")
        continue
      }
      let slides = Self.slides(of: text)
      for part in Self.parts where !slides.contains(where: { $0.heading.firstMatch(of: part.pattern) != nil })
      {
        problems.append("\(deck): no \"\(part.name)\" slide")
      }
      // The checks listed, for chapters whose checks the course writes.
      guard !chapter.writesChecks, let names = checks[chapter.number] else { continue }
      let listed = slides.filter { $0.heading.hasPrefix("## The checks") }.flatMap(\.bullets).map {
        names.contains($0) ? $0 : Self.checkName($0)
      }
      for item in listed where !names.contains(item) {
        problems.append(
          "\(deck): \"The checks\" lists \"\(item)\", which is no check of chapter \(chapter.paddedNumber)")
      }
      for name in names where !listed.contains(name) {
        problems.append("\(deck): \"The checks\" does not list \"\(name)\"")
      }
      problems += Self.countProblems(
        in: slides, deck: deck, checks: names, starterFails: chapter.starterFails)
    }
    return problems
  }

  /// Where the counts a deck says disagree with the course: "which N checks
  /// fail" (or "all N checks fail") anywhere must be the starter's failing
  /// checks; in the notes of "The checks" slides, "N checks" and "The
  /// starter passes N" count the chapter, or the checks listed under that
  /// heading ("(continued)" slides included).
  static func countProblems(in slides: [Slide], deck: String, checks: [String], starterFails: [String])
    -> [String]
  {
    var problems: [String] = []
    let fails = starterFails.count
    for slide in slides {
      for match in (slide.text + "\n" + slide.notes).matches(of: #/(?i)\b(?:all|which) ([\w-]+) checks fail/#)
      {
        guard let said = number(match.1), said != fails else { continue }
        problems.append("\(deck): says \"\(match.0)\", but the starter fails \(fails)")
      }
    }
    // "The checks" slides, grouped by heading.
    var groups: [(heading: String, listed: [String], notes: String)] = []
    for slide in slides where slide.heading.hasPrefix("## The checks") {
      let heading = slide.heading.replacing(#/\s*\(continued\)\s*$/#, with: "")
      let listed = slide.bullets.map { checks.contains($0) ? $0 : checkName($0) }
      if let index = groups.firstIndex(where: { $0.heading == heading }) {
        groups[index].listed += listed
        groups[index].notes += "\n" + slide.notes
      } else {
        groups.append((heading, listed, slide.notes))
      }
    }
    for group in groups {
      let listedPass = group.listed.filter { !starterFails.contains($0) }.count
      for match in group.notes.matches(of: #/(?:^|\n|[.!?]\s+)([\w-]+) checks\b/#) {
        guard let said = number(match.1), said != checks.count, said != group.listed.count else { continue }
        problems.append(
          "\(deck): \"\(group.heading.dropFirst(3))\" says \"\(match.1) checks\", but the chapter has"
            + " \(checks.count) and the slide lists \(group.listed.count)")
      }
      for match in group.notes.matches(of: #/(?i)the starter passes ([\w-]+)/#) {
        guard let said = number(match.1), said != checks.count - fails, said != listedPass else { continue }
        problems.append(
          "\(deck): \"\(group.heading.dropFirst(3))\" says \"\(match.0)\", but the starter passes"
            + " \(checks.count - fails) of the chapter's checks and \(listedPass) of those listed")
      }
    }
    return problems
  }

  /// A count as a deck writes it: digits, or a word from "one" to "thirty".
  static func number(_ word: Substring) -> Int? {
    if let value = Int(word) { return value }
    let words = [
      "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
      "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
      "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five", "twenty-six", "twenty-seven",
      "twenty-eight", "twenty-nine", "thirty",
    ]
    return words.firstIndex(of: word.lowercased()).map { $0 + 1 }
  }

  /// The check a list item names: the item, less a closing remark in
  /// parentheses (`Loads it (three runs: …)` names `Loads it`).
  static func checkName(_ item: String) -> String {
    guard item.hasSuffix(")"), let open = item.range(of: " (", options: .backwards) else { return item }
    return String(item[..<open.lowerBound])
  }

  /// One slide: its first heading, and its list items with their
  /// continuation lines joined, speaker notes left out.
  struct Slide {
    var heading: String
    var bullets: [String]
    /// The slide's text, notes left out.
    var text: String = ""
    /// Its speaker notes.
    var notes: String = ""
  }

  /// The slides of a deck: what lies between its `---` lines, after the
  /// front matter.
  static func slides(of text: String) -> [Slide] {
    var parts = text.components(separatedBy: "\n---\n")
    if text.hasPrefix("---\n") { parts.removeFirst() }
    return parts.map { raw in
      let notes = raw.matches(of: #/<!--([\s\S]*?)-->/#).map { String($0.1) }.joined(separator: "\n")
      let part = raw.replacing(#/<!--[\s\S]*?-->/#, with: "")
      let lines = part.components(separatedBy: "\n")
      let heading = lines.first { $0.hasPrefix("#") } ?? ""
      var bullets: [String] = []
      for line in lines {
        if line.hasPrefix("- ") {
          bullets.append(String(line.dropFirst(2)).trimmingCharacters(in: .whitespaces))
        } else if line.hasPrefix("  "), !line.trimmingCharacters(in: .whitespaces).isEmpty,
          let last = bullets.popLast()
        {
          bullets.append(last + " " + line.trimmingCharacters(in: .whitespaces))
        }
      }
      return Slide(heading: heading, bullets: bullets, text: part, notes: notes)
    }
  }
}
