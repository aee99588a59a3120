import Foundation
import WorkshopCore

/// Code on the slides that quotes the course's own files, checked against
/// them: a deck that quotes `Chapters/` or `Solutions/` says which file in
/// its fence (```` ```swift Solutions/05-TaskOwnership/Checkout.swift ````),
/// and the quote must still be in that file. Code that only illustrates says
/// so (```` ```swift sketch ````).
///
/// A quote may leave lines out, join a short block onto one line, and add or
/// drop comments: each of its lines, comments removed, must appear in the
/// file as the same run of tokens, in the same order, each string literal
/// as written. Both are read by the course's one Swift reader, ``SwiftTokens``.
struct SlideQuotes {
  var workspace: Workspace

  /// One fenced Swift block of a deck.
  struct Block {
    /// The line of the opening fence, from 1.
    var line: Int
    /// What follows ```` ```swift ```` on the fence: a path, `sketch`, or nothing.
    var info: String
    var code: [String]
  }

  /// What is wrong with the quotes of every deck, one line each.
  func problems() -> [String] {
    var problems: [String] = []
    let files = courseFiles()
    for chapter in workspace.curriculum.chapters {
      let deck = workspace.slidesFile(chapter)
      guard let text = try? String(contentsOf: workspace.url(deck), encoding: .utf8) else { continue }
      let own = files.filter { $0.key.contains("/\(chapter.folder)/") }
      for block in Self.blocks(in: text) {
        let quote = Self.code(block.code)
        if block.info == "sketch" { continue }
        if block.info.isEmpty {
          // Unmarked: is it a quote all the same?
          guard quote.count >= 2,
            let (path, _) = own.map({ ($0.key, Self.share(of: quote, in: $0.value)) }).filter({ $0.1 >= 0.5 })
              .max(by: { $0.1 < $1.1 })
          else { continue }
          problems.append(
            "\(deck):\(block.line): quotes \(path)? Name it on the fence (```swift \(path)) or mark it ```swift sketch"
          )
          continue
        }
        guard let file = files[block.info] else {
          problems.append(
            "\(deck):\(block.line): quotes \(block.info), which is not a file of Chapters/ or Solutions/")
          continue
        }
        if let missing = Self.firstMissing(quote, in: file) {
          problems.append("\(deck):\(block.line): no longer matches \(block.info): `\(missing)`")
        }
      }
    }
    return problems
  }

  /// Every Swift file of `Chapters/` and `Solutions/`, by path, as code lines.
  private func courseFiles() -> [String: [CodeLine]] {
    var files: [String: [CodeLine]] = [:]
    for chapter in workspace.curriculum.chapters {
      for variant in [Variant.chapters, .solutions] {
        let folder = workspace.codeFolder(chapter, variant)
        for name in Files.under(workspace.url(folder), suffix: ".swift") {
          let text = (try? String(contentsOf: workspace.url(folder + "/" + name), encoding: .utf8)) ?? ""
          files[folder + "/" + name] = Self.code(text.components(separatedBy: "\n"))
        }
      }
    }
    return files
  }

  /// The fenced Swift blocks of a deck.
  static func blocks(in text: String) -> [Block] {
    var blocks: [Block] = []
    var open: Block?
    for (index, line) in text.components(separatedBy: "\n").enumerated() {
      if var block = open {
        if line.trimmingCharacters(in: .whitespaces) == "```" {
          blocks.append(block)
          open = nil
        } else {
          block.code.append(line)
          open = block
        }
      } else if line.hasPrefix("```swift") {
        open = Block(
          line: index + 1,
          info: String(line.dropFirst("```swift".count)).trimmingCharacters(in: .whitespaces),
          code: [])
      }
    }
    return blocks
  }

  /// A line of code, read by the course's one Swift reader (``SwiftTokens``).
  struct CodeLine: Equatable {
    /// The line as written, without its indentation.
    var text: String
    /// Its tokens, comments left out, a string literal as written.
    var tokens: [String]
  }

  /// The lines that are code: comments removed, blank lines and `...` dropped.
  /// Each line is read on its own, the quote's as the file's, so a quote
  /// that starts inside a block or a string reads as the file does there.
  static func code(_ lines: [String]) -> [CodeLine] {
    lines.compactMap { line in
      let tokens = SwiftTokens.read(line).filter { !$0.interpolated }.map { token in
        switch token.kind {
        case .string: token.literal ?? "\"\""
        case .attribute: "@" + token.text
        case .pound: "#" + token.text
        default: token.text
        }
      }
      guard !tokens.isEmpty, tokens != ["..."], tokens != ["…"] else { return nil }
      return CodeLine(text: line.trimmingCharacters(in: .whitespaces), tokens: tokens)
    }
  }

  /// The first quote line whose tokens are not found in `file`, after the
  /// previous line's, as one run; nil when the whole quote is there.
  static func firstMissing(_ quote: [CodeLine], in file: [CodeLine]) -> String? {
    let stream = file.flatMap(\.tokens)
    var start = 0
    for line in quote {
      let run = line.tokens
      var index = start
      while index + run.count <= stream.count, Array(stream[index..<index + run.count]) != run { index += 1 }
      guard index + run.count <= stream.count else { return line.text }
      start = index + run.count
    }
    return nil
  }

  /// How much of a quote's lines appear, as they are, in a file.
  static func share(of quote: [CodeLine], in file: [CodeLine]) -> Double {
    let lines = Set(file.map(\.tokens))
    return Double(quote.filter { lines.contains($0.tokens) }.count) / Double(max(1, quote.count))
  }
}
