/// A Swift file read as the compiler reads it, as far as the runner's scans
/// need: identifiers, attributes, `#` keywords and punctuation, each with its
/// line; comments and the text of string literals left out, the code inside
/// their interpolations kept.
///
/// It knows nested block comments, multi-line and raw strings (`#"…"#`,
/// whose `\` is text and `\#(…)` an interpolation), backticked identifiers
/// (`` `exit` `` is `exit`) and regex literals. A bare `/…/` regex literal is
/// the one place where telling code from text needs the compiler's grammar:
/// every `/` that could start one (written where an expression starts, and
/// not followed by a space) is a ``Kind/regexLiteral`` token of its own, and
/// what follows it is read as code. Scans that must not be misled reject a
/// file with such a token (see ``ChapterRules``): then no `/` hides code.
///
/// ```swift
/// let tokens = SwiftTokens.read(#"let s = "exit(0)"; exit(1)"#)
/// tokens.filter { $0.kind == .identifier }.map(\.text)  // ["let", "s", "exit"]
/// ```
public enum SwiftTokens {
  /// One token and the line it starts on.
  public struct Token: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
      /// A name or keyword, backticks removed.
      case identifier
      /// `@name`: the name without `@`.
      case attribute
      /// `#name`: the name without `#` (`if`, `file`, `externalMacro`).
      case pound
      /// A string literal (its text is not kept).
      case string
      /// A number.
      case number
      /// Where a regex literal may start.
      case regexLiteral
      /// Anything else: `.`, `(`, `)`, `{`, operators.
      case punctuation
    }
    public var kind: Kind
    public var text: String
    public var line: Int
    /// Whether whitespace (or a comment) comes right before it: scans that
    /// match patterns over code rebuild it with the original spacing.
    public var spaceBefore = true

    public init(kind: Kind, text: String, line: Int, spaceBefore: Bool = true) {
      self.kind = kind
      self.text = text
      self.line = line
      self.spaceBefore = spaceBefore
    }
  }

  /// The tokens of `source`.
  public static func read(_ source: String) -> [Token] {
    var reader = Reader(Array(source.unicodeScalars))
    reader.code(untilClosingParenthesis: false)
    return reader.tokens
  }

  private struct Reader {
    let characters: [Unicode.Scalar]
    var index = 0
    var line = 1
    var tokens: [Token] = []
    /// Where the token being read starts.
    var start = 0

    init(_ characters: [Unicode.Scalar]) { self.characters = characters }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
      index + offset < characters.count ? characters[index + offset] : nil
    }

    mutating func advance(_ count: Int = 1) {
      for _ in 0..<count where index < characters.count {
        if characters[index] == "\n" { line += 1 }
        index += 1
      }
    }

    static func isIdentifierHead(_ c: Unicode.Scalar) -> Bool {
      c == "_" || c.properties.isAlphabetic || (c.value > 0x7F && !c.properties.isWhitespace)
    }
    static func isIdentifierBody(_ c: Unicode.Scalar) -> Bool {
      isIdentifierHead(c) || ("0"..."9").contains(c) || c == "$"
    }
    static let operatorCharacters = Set("/=-+!*%<>&|^~?.".unicodeScalars)

    mutating func add(_ kind: Token.Kind, _ text: String, line: Int? = nil) {
      let spaced = start == 0 || [" ", "\t", "\n", "\r", "/"].contains(characters[start - 1])
      tokens.append(Token(kind: kind, text: text, line: line ?? self.line, spaceBefore: spaced))
    }

    /// Whether the last token ends an expression (so a `/` after it, with no
    /// space between, divides).
    var afterExpression: Bool {
      guard let last = tokens.last else { return false }
      switch last.kind {
      case .identifier, .string, .number: return true
      case .punctuation: return [")", "]", "}"].contains(last.text)
      default: return false
      }
    }

    mutating func identifier() -> String {
      var name = ""
      if peek() == "`" {
        advance()
        while let c = peek(), c != "`", c != "\n" {
          name.unicodeScalars.append(c)
          advance()
        }
        if peek() == "`" { advance() }
        return name
      }
      while let c = peek(), Self.isIdentifierBody(c) {
        name.unicodeScalars.append(c)
        advance()
      }
      return name
    }

    /// Reads code until the end, or until the `)` that closes an
    /// interpolation when `untilClosingParenthesis`.
    mutating func code(untilClosingParenthesis: Bool) {
      var depth = 0
      while let c = peek() {
        start = index
        let spaceBefore = index == 0 || [" ", "\t", "\n", "\r"].contains(characters[index - 1])
        switch c {
        case " ", "\t", "\n", "\r":
          advance()
        case "/" where peek(1) == "/":
          while let c = peek(), c != "\n" { advance() }
        case "/" where peek(1) == "*":
          blockComment()
        case "\"":
          string(hashes: 0)
        case "#":
          var hashes = 0
          while peek(hashes) == "#" { hashes += 1 }
          if peek(hashes) == "\"" {
            advance(hashes)
            string(hashes: hashes)
          } else if peek(hashes) == "/" {
            add(.regexLiteral, "#/")
            advance(hashes + 1)
          } else if hashes == 1, let next = peek(1), Self.isIdentifierHead(next) {
            let start = line
            advance()
            add(.pound, identifier(), line: start)
          } else {
            add(.punctuation, "#")
            advance()
          }
        case "@":
          let start = line
          advance()
          if let next = peek(), Self.isIdentifierHead(next) || next == "`" {
            add(.attribute, identifier(), line: start)
          } else {
            add(.punctuation, "@", line: start)
          }
        case "`":
          let start = line
          add(.identifier, identifier(), line: start)
        case "(":
          depth += 1
          add(.punctuation, "(")
          advance()
        case ")":
          if untilClosingParenthesis, depth == 0 {
            advance()
            return
          }
          depth -= 1
          add(.punctuation, ")")
          advance()
        case "/":
          // A regex literal can start where an expression does, and not
          // with a space; `/=` followed by a space assigns.
          let next = peek(1)
          let spaced = next == nil || [" ", "\t", "\n", "\r"].contains(next!)
          let assigns = next == "=" && (peek(2).map { [" ", "\t", "\n", "\r"].contains($0) } ?? true)
          if !spaced, !assigns, spaceBefore || !afterExpression {
            add(.regexLiteral, "/")
            advance()
          } else {
            operatorRun()
          }
        case "$":
          let start = line
          advance()
          add(.identifier, "$" + identifier(), line: start)
        default:
          if Self.isIdentifierHead(c) {
            let start = line
            add(.identifier, identifier(), line: start)
          } else if ("0"..."9").contains(c) {
            var number = ""
            func isDigit(_ c: Unicode.Scalar?) -> Bool { c.map { ("0"..."9").contains($0) } ?? false }
            while let c = peek(), Self.isIdentifierBody(c) || c == "." && isDigit(peek(1)) {
              number.unicodeScalars.append(c)
              advance()
            }
            add(.number, number)
          } else if Self.operatorCharacters.contains(c) {
            operatorRun()
          } else {
            add(.punctuation, String(c))
            advance()
          }
        }
      }
    }

    /// An operator: `.` alone, or a run of operator characters, stopping
    /// before a comment.
    mutating func operatorRun() {
      if peek() == "." {
        add(.punctuation, ".")
        advance()
        return
      }
      var text = ""
      while let c = peek(), Self.operatorCharacters.contains(c), c != "." || text.isEmpty {
        if c == "/", peek(1) == "/" || peek(1) == "*", !text.isEmpty { break }
        text.unicodeScalars.append(c)
        advance()
      }
      add(.punctuation, text)
    }

    mutating func blockComment() {
      var depth = 0
      while peek() != nil {
        if peek() == "/", peek(1) == "*" {
          depth += 1
          advance(2)
        } else if peek() == "*", peek(1) == "/" {
          depth -= 1
          advance(2)
          if depth == 0 { return }
        } else {
          advance()
        }
      }
    }

    /// A string literal whose opening quote is at `index`, after `hashes` `#`s.
    mutating func string(hashes: Int) {
      start = max(0, index - hashes)
      add(.string, "", line: line)
      let multiline = peek(1) == "\"" && peek(2) == "\""
      advance(multiline ? 3 : 1)
      while let c = peek() {
        if c == "\n", !multiline { return }  // unterminated: the compiler says so
        if c == "\\" {
          // `\` then the delimiter's `#`s: an escape, or an interpolation.
          var matches = true
          for offset in 0..<hashes where peek(1 + offset) != "#" { matches = false }
          if matches {
            if peek(1 + hashes) == "(" {
              advance(2 + hashes)
              code(untilClosingParenthesis: true)
              continue
            }
            advance(2 + hashes)
            continue
          }
          advance()
          continue
        }
        if c == "\"" {
          let quotes = multiline ? 3 : 1
          var closes = true
          for offset in 0..<quotes where peek(offset) != "\"" { closes = false }
          for offset in 0..<hashes where peek(quotes + offset) != "#" { closes = false }
          if closes {
            advance(quotes + hashes)
            return
          }
        }
        advance()
      }
    }
  }
}
