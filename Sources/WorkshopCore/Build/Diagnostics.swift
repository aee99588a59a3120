import Foundation

/// Reading compiler output for the parts a learner needs.
package enum Diagnostics {
  /// One compiler error, with the source line and caret that follow it.
  package struct CompilerError: Sendable, Equatable {
    /// The file's path as the compiler printed it.
    package var path: String
    package var line: Int
    var column: Int
    /// The error and its context lines.
    package var text: String
  }

  /// The `path:line:col: error: ...` diagnostics in compiler output, deduplicated.
  package static func compilerErrors(in output: String) -> [CompilerError] {
    let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var errors: [CompilerError] = []
    var seen = Set<String>()
    for (index, line) in lines.enumerated() {
      guard let range = line.range(of: ": error: ") else { continue }
      let location = line[..<range.lowerBound].split(separator: ":")
      guard location.count >= 3, let lineNumber = Int(location[location.count - 2]),
        let column = Int(location[location.count - 1])
      else { continue }
      let path = location[..<(location.count - 2)].joined(separator: ":")
      guard seen.insert(line).inserted else { continue }
      // The compiler follows an error with the source line and a caret line.
      var text = [line]
      for next in lines[(index + 1)..<min(index + 4, lines.count)] {
        if next.contains(": error: ") || next.contains(": warning: ") || next.hasPrefix("[") { break }
        if next.trimmingCharacters(in: .whitespaces).isEmpty { break }
        text.append(next)
      }
      errors.append(
        CompilerError(path: path, line: lineNumber, column: column, text: text.joined(separator: "\n")))
    }
    return errors
  }

  /// Whether a compiler or linker process of the build was stopped at a
  /// limit: by `SIGXCPU` (24) or `SIGKILL` (9) at its CPU time, or out of
  /// memory at its address space. Read from lines the tools start
  /// themselves, never from a diagnostic's quote of the learner's code
  /// (` 12 | // failed due to signal 24`).
  static func hitLimit(_ output: String) -> Bool {
    output.split(separator: "\n").contains { line in
      (line.hasPrefix("error: ")
        && (line.contains("failed due to signal 24") || line.contains("failed due to signal 9 ")))
        || line.hasPrefix("LLVM ERROR: out of memory")
    }
  }

  /// The chapters of the source files the stopped compiler was working on,
  /// in the order its crash report names them: its numbered lines
  /// `0.\tProgram arguments: … -primary-file …` and `4.\tWhile type-checking
  /// … (at path:line:col)`, and no other line.
  static func chaptersBeingCompiled(in output: String) -> [Int] {
    var numbers: [Int] = []
    for line in output.split(separator: "\n") {
      guard let tab = line.firstIndex(of: "\t"), line[..<tab].wholeMatch(of: /\d+\./) != nil else { continue }
      let text = line[line.index(after: tab)...]
      guard text.hasPrefix("Program arguments:") || text.hasPrefix("While ") else { continue }
      for word in text.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ")" }) {
        let path = word.split(separator: ":").first.map(String.init) ?? ""
        guard path.hasSuffix(".swift"), let number = chapterNumber(ofPath: path), !numbers.contains(number)
        else { continue }
        numbers.append(number)
      }
    }
    return numbers
  }

  /// The chapter number a source path belongs to: `.../Chapters/04-X/File.swift` is 4.
  static func chapterNumber(ofPath path: String) -> Int? {
    let parts = path.split(separator: "/").map(String.init)
    for (index, part) in parts.enumerated().dropLast()
    where ["Chapters", "Solutions", "Tests"].contains(part) {
      let folder = parts[index + 1]
      guard let dash = folder.firstIndex(of: "-"), let number = Int(folder[..<dash]) else { continue }
      return number
    }
    return nil
  }
}
