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
package enum SwiftTokens {
  /// One token and the line it starts on.
  package struct Token: Equatable, Sendable {
    package enum Kind: Equatable, Sendable {
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
    package var kind: Kind
    package var text: String
    var line: Int
    /// Whether whitespace (or a comment) comes right before it: scans that
    /// match patterns over code rebuild it with the original spacing.
    var spaceBefore = true
    /// Whether the name was written in backticks (`` `let` ``): never a keyword.
    package var backticked = false
    /// A string literal as written, quotes, escapes and interpolations
    /// included; nil for any other token.
    package var literal: String?
    /// Whether the token is code inside a string literal's interpolation
    /// (`"\(count)"`): its literal, as written, holds it too.
    package var interpolated = false

    init(kind: Kind, text: String, line: Int, spaceBefore: Bool = true, backticked: Bool = false) {
      self.kind = kind
      self.text = text
      self.line = line
      self.spaceBefore = spaceBefore
      self.backticked = backticked
    }

    /// Whether this is the keyword `word`, not a name spelled like it.
    func isKeyword(_ word: String) -> Bool {
      kind == .identifier && text == word && !backticked
    }
  }

  /// The tokens of `source`.
  package static func read(_ source: String) -> [Token] {
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
    /// Whether a comment was skipped since the last token: the compiler
    /// reads a comment as whitespace.
    var afterComment = false
    /// How many string interpolations the reader is inside.
    var interpolations = 0

    init(_ characters: [Unicode.Scalar]) { self.characters = characters }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
      index + offset < characters.count ? characters[index + offset] : nil
    }

    mutating func advance(_ count: Int = 1) {
      for _ in 0..<count where index < characters.count {
        // A line ends at `\n`, `\r\n` or a lone `\r`, as for the compiler.
        if characters[index] == "\n" || (characters[index] == "\r" && peek(1) != "\n") { line += 1 }
        index += 1
      }
    }

    /// What the compiler skips between tokens: NUL, tab, line feed,
    /// vertical tab, form feed, carriage return and space.
    static func isWhitespace(_ c: Unicode.Scalar) -> Bool {
      // Beyond ASCII, the compiler takes a no-break space for one (with a
      // warning); any other space is whitespace here too, never a name.
      [0x00, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0].contains(c.value)
        || (!c.isASCII && c.properties.isWhitespace)
    }

    /// Combining marks and variation selectors: they continue a name or an
    /// operator, whichever they follow.
    static func isCombining(_ c: Unicode.Scalar) -> Bool {
      let ranges: [ClosedRange<UInt32>] = [
        0x0300...0x036F, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE00...0xFE0F, 0xFE20...0xFE2F,
        0xE0100...0xE01EF,
      ]
      return ranges.contains { $0.contains(c.value) }
    }
    static func isLineEnd(_ c: Unicode.Scalar) -> Bool { c == "\n" || c == "\r" }

    /// The characters an operator is made of, as *The Swift Programming
    /// Language* lists them (operator heads and the combining marks operators
    /// may continue with). No such character is ever part of a name.
    static func isOperatorCharacter(_ c: Unicode.Scalar) -> Bool {
      if c.isASCII { return "/=-+!*%<>&|^~?".unicodeScalars.contains(c) }
      let ranges: [ClosedRange<UInt32>] = [
        0xA1...0xA7, 0xA9...0xA9, 0xAB...0xAC, 0xAE...0xAE, 0xB0...0xB1, 0xB6...0xB6, 0xBB...0xBB,
        0xBF...0xBF, 0xD7...0xD7, 0xF7...0xF7, 0x2016...0x2017, 0x2020...0x2027, 0x2030...0x203E,
        0x2041...0x2053, 0x2055...0x205E, 0x2190...0x23FF, 0x2500...0x2775, 0x2794...0x2BFF,
        0x2E00...0x2E7F, 0x3001...0x3003, 0x3008...0x3020, 0x3030...0x3030,
      ]
      return ranges.contains { $0.contains(c.value) }
    }

    static func isIdentifierHead(_ c: Unicode.Scalar) -> Bool {
      if c.isASCII { return c == "_" || c.properties.isAlphabetic }
      return !isOperatorCharacter(c) && !isWhitespace(c) && !isCombining(c)
        && (c.properties.isAlphabetic || c.value >= 0xA8)
    }
    static func isIdentifierBody(_ c: Unicode.Scalar) -> Bool {
      isIdentifierHead(c) || ("0"..."9").contains(c) || c == "$" || isCombining(c)
    }

    mutating func add(_ kind: Token.Kind, _ text: String, line: Int? = nil, backticked: Bool = false) {
      let spaced = start == 0 || Self.isWhitespace(characters[start - 1]) || afterComment
      var token = Token(
        kind: kind, text: text, line: line ?? self.line, spaceBefore: spaced, backticked: backticked)
      token.interpolated = interpolations > 0
      tokens.append(token)
      afterComment = false
    }

    /// Whether the last token ends an expression (so a `/` after it, with no
    /// space between, divides).
    var afterExpression: Bool {
      guard let last = tokens.last else { return false }
      switch last.kind {
      case .identifier: return last.backticked || !Self.expressionKeywords.contains(last.text)
      case .string, .number: return true
      // A postfix `!` or `?` (`total!/n`) ends an expression too.
      case .punctuation:
        return [")", "]", "}"].contains(last.text) || (["!", "?"].contains(last.text) && !last.spaceBefore)
      default: return false
      }
    }

    /// Keywords after which an expression starts: a `/` after them can
    /// open a regex literal.
    static let expressionKeywords: Set<String> = [
      "return", "try", "await", "throw", "in", "case", "where", "if", "guard", "else", "while", "switch",
      "repeat", "yield", "is", "as", "some", "any", "let", "var", "defer", "do", "catch", "consume", "copy",
      "discard", "each", "then", "for",
    ]

    /// Whether the last name read was in backticks.
    var lastBackticked = false

    mutating func identifier() -> String {
      var name = ""
      lastBackticked = peek() == "`"
      if peek() == "`" {
        advance()
        while let c = peek(), c != "`", !Self.isLineEnd(c) {
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
        let spaceBefore = index == 0 || Self.isWhitespace(characters[index - 1])
        switch c {
        case _ where Self.isWhitespace(c):
          advance()
        case "/" where peek(1) == "/":
          while let c = peek(), !Self.isLineEnd(c) { advance() }
          afterComment = true
        case "/" where peek(1) == "*":
          blockComment()
          afterComment = true
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
          } else if hashes == 1, let next = peek(1), Self.isIdentifierHead(next) || next == "`" {
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
          let name = identifier()
          add(.identifier, name, line: start, backticked: true)
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
          let spaced = next.map(Self.isWhitespace) ?? true
          let assigns = next == "=" && (peek(2).map(Self.isWhitespace) ?? true)
          if !spaced, !assigns, spaceBefore || afterComment || !afterExpression {
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
          } else if Self.isOperatorCharacter(c) || c == "." {
            operatorRun()
          } else {
            add(.punctuation, String(c))
            advance()
          }
        }
      }
    }

    /// An operator: `.` alone (a member), a run of operator characters, or
    /// one that starts with `.` and may hold more dots (`.!.`), stopping
    /// before a comment. An operator with a `/` in it other than `/` and
    /// `/=` could end where a regex literal starts (`^^/a/`): it is a
    /// ``Token/Kind/regexLiteral`` token.
    mutating func operatorRun() {
      let dotted = peek() == "."
      if dotted, !(peek(1).map { Self.isOperatorCharacter($0) || $0 == "." } ?? false) {
        add(.punctuation, ".")
        advance()
        return
      }
      // A `!` or `?` right after an expression is postfix, an operator of
      // its own (`total!/n`, `value?.count`).
      if let c = peek(), c == "!" || c == "?", afterExpression, start > 0,
        !Self.isWhitespace(characters[start - 1])
      {
        add(.punctuation, String(c))
        advance()
        return
      }
      var text = ""
      while let c = peek(),
        Self.isOperatorCharacter(c) || (dotted && c == ".") || (!text.isEmpty && Self.isCombining(c))
      {
        if c == "/", peek(1) == "/" || peek(1) == "*", !text.isEmpty { break }
        text.unicodeScalars.append(c)
        advance()
      }
      if text.contains("/"), text != "/", text != "/=" {
        add(.regexLiteral, text)
      } else {
        add(.punctuation, text)
      }
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
      let (token, opening) = (tokens.count - 1, start)
      defer { tokens[token].literal = String(String.UnicodeScalarView(characters[opening..<index])) }
      // `"""` opens a multi-line string only when nothing but whitespace
      // follows it on its line; `#"""#` is a one-line raw string of `"`.
      var multiline = peek(1) == "\"" && peek(2) == "\""
      if multiline {
        var offset = 3
        while let c = peek(offset), !Self.isLineEnd(c) {
          if !Self.isWhitespace(c) {
            multiline = false
            break
          }
          offset += 1
        }
      }
      advance(multiline ? 3 : 1)
      while let c = peek() {
        if Self.isLineEnd(c), !multiline { return }  // unterminated: the compiler says so
        if c == "\\" {
          // `\` then the delimiter's `#`s: an escape, or an interpolation.
          var matches = true
          for offset in 0..<hashes where peek(1 + offset) != "#" { matches = false }
          if matches {
            if peek(1 + hashes) == "(" {
              advance(2 + hashes)
              // The interpolation's code, between parentheses of its own:
              // an expression starts there (`"\(/a/)"` opens a regex).
              start = index
              interpolations += 1
              add(.punctuation, "(")
              code(untilClosingParenthesis: true)
              add(.punctuation, ")")
              interpolations -= 1
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
