import Foundation
import WorkshopCore

/// The slides every deck has, in the same words, so that an instructor finds
/// the same parts in every chapter: the title, what users see (the bug), the
/// broken code, a timeline, "Your turn", "The checks" and the takeaways; and
/// "The checks" slides list exactly the chapter's checks, in their own words.
///
/// ```
/// Slides/11-AsyncStreams.md: no "## Timeline: …" slide
/// Slides/07-CancellableBridges.md: "The checks" does not list "Ends the stream once"
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
    }
    return problems
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
  }

  /// The slides of a deck: what lies between its `---` lines, after the
  /// front matter.
  static func slides(of text: String) -> [Slide] {
    let withoutNotes = text.replacing(/<!--[\s\S]*?-->/, with: "")
    var parts = withoutNotes.components(separatedBy: "\n---\n")
    if withoutNotes.hasPrefix("---\n") { parts.removeFirst() }
    return parts.map { part in
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
      return Slide(heading: heading, bullets: bullets)
    }
  }
}
