/// Splits a command line as printed by `swiftc -###` (POSIX shell quoting)
/// or `clang -###` (every word in double quotes, with backslash escapes).
enum ShellWords {
  static func split(_ line: String) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quote: Character?
    var escaped = false
    for character in line {
      if escaped {
        current.append(character)
        escaped = false
        continue
      }
      switch (quote, character) {
      case ("\'", "\'"), ("\"", "\""):
        quote = nil
      case ("\"", "\\"), (nil, "\\"):
        escaped = true
        inWord = true
      case (nil, "\'"), (nil, "\""):
        quote = character
        inWord = true
      case (nil, " "), (nil, "\t"):
        if inWord { words.append(current) }
        current = ""
        inWord = false
      default:
        current.append(character)
        inWord = true
      }
    }
    if inWord { words.append(current) }
    return words
  }
}
