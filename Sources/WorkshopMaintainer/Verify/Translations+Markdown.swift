import Foundation

/// How `Translations` reads Markdown: a deck's front matter, fenced code
/// blocks, and inline code as CommonMark reads it.
extension Translations {
  /// A Marp deck's front matter (between its first two `---` lines, those
  /// lines left out) and the rest; nil and the whole text for a document
  /// without one.
  static func frontMatter(of text: String) -> (front: String?, body: String) {
    guard text.hasPrefix("---\n"),
      let end = text.range(of: "\n---\n", range: text.index(text.startIndex, offsetBy: 3)..<text.endIndex)
    else { return (nil, text) }
    let front = String(text[text.index(text.startIndex, offsetBy: 4)..<end.lowerBound])
    return (front, String(text[end.upperBound...]))
  }

  /// The inline code spans of Markdown prose, as CommonMark reads them: a
  /// run of backticks opens one, and the next run of as many closes it
  /// (```` `` `a` `` ```` holds `` `a` ``).
  static func inlineCode(in text: String) -> [String] {
    codeSpans(in: text).map { String(text[$0.content]) }
  }

  /// The prose with its inline code taken out.
  static func withoutInlineCode(_ text: String) -> String {
    var result = ""
    var last = text.startIndex
    for span in codeSpans(in: text) {
      result += text[last..<span.whole.lowerBound] + " "
      last = span.whole.upperBound
    }
    return result + text[last...]
  }

  private static func codeSpans(in text: String) -> [(
    whole: Range<String.Index>, content: Range<String.Index>
  )] {
    var spans: [(whole: Range<String.Index>, content: Range<String.Index>)] = []
    var index = text.startIndex
    func run(at start: String.Index) -> String.Index {
      var end = start
      while end < text.endIndex, text[end] == "`" { end = text.index(after: end) }
      return end
    }
    while index < text.endIndex {
      guard text[index] == "`" else {
        index = text.index(after: index)
        continue
      }
      let openEnd = run(at: index)
      let width = text.distance(from: index, to: openEnd)
      var search = openEnd
      var closed = false
      while search < text.endIndex {
        guard text[search] == "`" else {
          search = text.index(after: search)
          continue
        }
        let closeEnd = run(at: search)
        if text.distance(from: search, to: closeEnd) == width {
          spans.append((index..<closeEnd, openEnd..<search))
          index = closeEnd
          closed = true
          break
        }
        search = closeEnd
      }
      if !closed { index = openEnd }
    }
    return spans
  }

  /// A text's prose and its fenced code blocks (their lines, fences left out).
  static func split(_ text: String) -> (text: String, code: [String]) {
    var prose: [Substring] = []
    var blocks: [String] = []
    var block: [Substring]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      // A fence: backticks, then an info string without any (a line that
      // opens with ```` `` ```` inline code closes it on the same line).
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("```"), !trimmed.drop(while: { $0 == "`" }).contains("`") {
        if let current = block {
          blocks.append(current.joined(separator: "\n"))
          block = nil
        } else {
          block = []
        }
      } else if block != nil {
        block?.append(line)
      } else {
        prose.append(line)
      }
    }
    return (prose.joined(separator: "\n"), blocks)
  }
}
