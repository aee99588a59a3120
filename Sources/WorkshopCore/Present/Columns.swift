/// How many columns text takes in a terminal: a Chinese character (and
/// any other East Asian wide or full-width one) takes two, so that the
/// progress table's columns line up in either language.
///
/// ```swift
/// Columns.width(of: "Task tree")   // 9
/// Columns.width(of: "任务树")       // 6
/// ```
package enum Columns {
  /// The columns `text` takes; escape codes are not expected here.
  package static func width(of text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + (isWide($1) ? 2 : 1) }
  }

  /// `text` followed by spaces to `width` columns, and by one at least: a
  /// table's cell.
  package static func padded(_ text: String, to width: Int) -> String {
    let columns = Self.width(of: text)
    return columns >= width ? text + " " : text + String(repeating: " ", count: width - columns)
  }

  /// East Asian Wide and Fullwidth scalars, in the ranges a course text uses.
  private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x1100...0x115F,  // Hangul Jamo
      0x2E80...0x303E,  // CJK radicals, punctuation
      0x3041...0x33FF,  // kana, CJK symbols
      0x3400...0x4DBF,  // CJK extension A
      0x4E00...0x9FFF,  // CJK unified ideographs
      0xA000...0xA4CF,  // Yi
      0xAC00...0xD7A3,  // Hangul syllables
      0xF900...0xFAFF,  // CJK compatibility ideographs
      0xFE30...0xFE4F,  // CJK compatibility forms
      0xFF00...0xFF60,  // full-width forms
      0xFFE0...0xFFE6,
      0x20000...0x3FFFD:
      true
    default: false
    }
  }
}
