import Foundation

/// A fix a learner might write, kept beside the course to prove its checks:
/// a wrong fix must fail at least one check, a right one must pass them all.
///
/// A mutation is a small text file in `Mutations/NN-Name/`, applied on top of
/// the chapter's solution:
///
///     # The once-guard is a plain Bool: two threads can both see `false`.
///     kind: wrong           (or right, or uncaught: a known blind spot, not graded)
///     --- ProfileBridge.swift
///     <<<<<<< find
///     text that occurs exactly once in the solution's file
///     =======
///     what replaces it
///     >>>>>>> replace
///
/// A file section may hold several blocks; one without any block is the
/// whole new file.
package struct Mutation: Sendable, Equatable {
  package enum Kind: String, Sendable {
    /// A mistake: at least one check must fail.
    case wrong
    /// Another right answer: every check must pass.
    case right
    /// A mistake no deterministic check can catch here (a ThreadSanitizer
    /// blind spot, a window no test can open): kept on record, not graded.
    case uncaught
  }

  /// One change to one file.
  enum Edit: Sendable, Equatable {
    case replace(find: String, with: String)
    case wholeFile(String)
  }

  /// The file's name without `.mutation`.
  package var name: String
  /// The one-line note: the mistake, or the approach.
  package var note: String
  package var kind: Kind
  /// The edits, by file name relative to the chapter's folder, in order.
  var edits: [(file: String, edit: Edit)]

  package static func == (lhs: Mutation, rhs: Mutation) -> Bool {
    lhs.name == rhs.name && lhs.note == rhs.note && lhs.kind == rhs.kind
      && lhs.edits.map(\.file) == rhs.edits.map(\.file) && lhs.edits.map(\.edit) == rhs.edits.map(\.edit)
  }

  /// The extension of mutation files.
  static let fileExtension = "mutation"

  /// Reads a mutation file's text.
  static func parse(_ text: String, name: String) throws -> Mutation {
    var note: String?
    var kind: Kind?
    var edits: [(file: String, edit: Edit)] = []
    var file: String?
    var body: [String] = []
    var sectionHasBlocks = false
    var find: [String]?
    var replacement: [String]?

    func fail(_ message: String) -> CurriculumError {
      CurriculumError(description: "\(name).\(fileExtension): \(message)")
    }
    func closeSection() throws {
      guard let current = file else { return }
      if find != nil || replacement != nil {
        throw fail("a block in \(current) is not closed with >>>>>>> replace")
      }
      if !sectionHasBlocks {
        edits.append((current, .wholeFile(body.joined(separator: "\n") + "\n")))
      }
    }

    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if file == nil {
        if line.hasPrefix("#"), note == nil {
          note = line.dropFirst().trimmingCharacters(in: .whitespaces)
        } else if line.hasPrefix("kind:") {
          let value = line.dropFirst("kind:".count).trimmingCharacters(in: .whitespaces)
          guard let parsed = Kind(rawValue: value) else {
            throw fail("kind must be wrong, right or uncaught, not \(value)")
          }
          kind = parsed
        } else if line.hasPrefix("--- ") {
          file = String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces)
        } else if !line.trimmingCharacters(in: .whitespaces).isEmpty && !line.hasPrefix("#") {
          throw fail("unexpected line before the first --- File.swift: \(line)")
        }
        continue
      }
      if line.hasPrefix("--- ") && find == nil && replacement == nil {
        try closeSection()
        file = String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces)
        body = []
        sectionHasBlocks = false
      } else if line == "<<<<<<< find" {
        sectionHasBlocks = true
        find = []
      } else if line == "=======" && find != nil && replacement == nil {
        replacement = []
      } else if line == ">>>>>>> replace", let found = find, let replaced = replacement {
        edits.append(
          (file!, .replace(find: found.joined(separator: "\n"), with: replaced.joined(separator: "\n"))))
        find = nil
        replacement = nil
      } else if replacement != nil {
        replacement!.append(line)
      } else if find != nil {
        find!.append(line)
      } else {
        body.append(line)
      }
    }
    try closeSection()
    guard let note, !note.isEmpty else { throw fail("the first line must be a # note") }
    guard let kind else { throw fail("no kind: wrong or kind: right line") }
    guard !edits.isEmpty else { throw fail("changes no file") }
    // A whole-file section keeps its trailing blank lines out.
    edits = edits.map { entry in
      guard case .wholeFile(let text) = entry.edit else { return entry }
      return (entry.file, .wholeFile(text.trimmingCharacters(in: .newlines) + "\n"))
    }
    return Mutation(name: name, note: note, kind: kind, edits: edits)
  }

  /// Every mutation in `folder` (`*.mutation`), sorted by name; none when
  /// there is no such folder.
  package static func load(from folder: URL) throws -> [Mutation] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
      .filter { $0.hasSuffix("." + fileExtension) }.sorted()
    return try names.map { name in
      let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
      return try parse(text, name: String(name.dropLast(fileExtension.count + 1)))
    }
  }

  /// The chapter's files with this mutation applied; `files` maps names to
  /// contents. Throws when a find text is not in its file exactly once.
  package func apply(to files: [String: String]) throws -> [String: String] {
    var result = files
    for (file, edit) in edits {
      switch edit {
      case .wholeFile(let text):
        result[file] = text
      case .replace(let find, let replacement):
        guard let text = result[file] else {
          throw CurriculumError(description: "\(name).\(Self.fileExtension): the solution has no \(file)")
        }
        let pieces = text.components(separatedBy: find)
        guard pieces.count == 2 else {
          throw CurriculumError(
            description:
              "\(name).\(Self.fileExtension): the text to find in \(file) occurs \(pieces.count - 1) times, not once:\n"
              + find.split(separator: "\n").prefix(3).joined(separator: "\n"))
        }
        result[file] = pieces[0] + replacement + pieces[1]
      }
    }
    return result
  }
}
