import Foundation

/// What each of the course's checks exercises, as its `.exercising("…")`
/// trait names it (see the kit's `Exercising`), and where that declaration
/// is in a chapter's code as it is now.
///
/// The trait is read from the course's own checks, as written: on the
/// check's `@Test` attribute, or else on the nearest suite around it that
/// has one, innermost first.
package struct ExercisedDeclarations {
  var workspace: Workspace

  package init(workspace: Workspace) { self.workspace = workspace }

  /// The declaration the check with Swift Testing ID `id`
  /// (`Module.Suite/Inner/function()/File.swift:12:4`) names; nil when
  /// neither it nor a suite around it names one.
  package func declaration(ofCheck id: String, in chapter: Curriculum.Chapter) -> String? {
    let parts = id.split(separator: "/").map(String.init)
    guard parts.count >= 3, let located = parts.last?.firstMatch(of: /^(.+\.swift):(\d+):\d+$/),
      let line = Int(located.output.2)
    else { return nil }
    let file = workspace.checksFolder(chapter) + "/" + located.output.1
    guard let text = try? String(contentsOf: workspace.url(file), encoding: .utf8) else { return nil }
    let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(
      separator: "\n", omittingEmptySubsequences: false
    ).map(String.init)
    // The check's own attribute: from its `@Test` line to its `func`.
    if line >= 1, line <= lines.count {
      let end = lines[(line - 1)...].firstIndex { $0.contains("func ") } ?? (line - 1)
      if let name = Self.traitArgument(in: lines[(line - 1)...end].joined(separator: "\n")) { return name }
    }
    // The suites around it, innermost first: their attributes sit right
    // above their type's declaration.
    let suites = parts.dropLast(2).enumerated().map { index, part in
      index == 0 ? String(part.split(separator: ".").dropFirst().joined(separator: ".")) : part
    }
    for suite in suites.reversed() where !suite.isEmpty {
      // One pattern per suite, compiled once: compiling it for each line
      // took most of a check's pointer.
      guard let pattern = Self.regex("\\b(?:struct|class|enum|actor)\\s+\(Self.escaped(suite))\\b"),
        let declaration = lines.firstIndex(where: { $0.contains(pattern) })
      else { continue }
      var start = declaration
      while start > 0 {
        let above = lines[start - 1].trimmingCharacters(in: .whitespaces)
        if above.isEmpty || above.hasPrefix("//") || above.hasSuffix("}") { break }
        start -= 1
      }
      if let name = Self.traitArgument(in: lines[start...declaration].joined(separator: "\n")) { return name }
    }
    return nil
  }

  /// Where `declaration` is declared in `chapter`'s files in `variant`, the
  /// files of `preferring` first: its path and line, counted from 1.
  package func location(
    of declaration: String, in chapter: Curriculum.Chapter, variant: Variant, preferring: String? = nil
  ) -> (path: String, line: Int)? {
    let (type, member) = Self.split(declaration)
    let folder = workspace.codeFolder(chapter, variant)
    let files = (preferring.map { [$0] } ?? []) + chapter.files.filter { $0 != preferring }
    for file in files {
      let path = folder + "/" + file
      guard let text = try? String(contentsOf: workspace.url(path), encoding: .utf8) else { continue }
      // Read as code: a name in a comment or a string is not its declaration.
      let code = ReviewScan.code(of: text)
      var from = 0
      if let type {
        guard
          let pattern = Self.regex(
            "\\b(?:class|struct|enum|actor|extension|protocol)\\s+\(Self.escaped(type))\\b"),
          let found = code.firstIndex(where: { $0.contains(pattern) })
        else { continue }
        if member == nil { return (path, found + 1) }
        from = found
      }
      guard let member else { continue }
      let name = Self.escaped(member)
      guard
        let pattern = member == "init"
          ? Self.regex("\\binit\\s*[(<?!]") : Self.regex("\\b(?:func|var|let|case)\\s+\(name)\\b")
      else { continue }
      // Overloads by label (`provider(didUpdate:)`, `provider(didStopWith:)`):
      // the one whose first label is the named one, when there is one.
      if let label = Self.firstLabel(declaration), label != "_", member != "init" {
        if let labelled = Self.regex(
          "\\bfunc\\s+\(name)\\s*(?:<[^>]*>)?\\s*\\(\\s*\(Self.escaped(label))\\b"),
          let found = code[from...].firstIndex(where: { $0.contains(labelled) })
        {
          return (path, found + 1)
        }
      }
      if let found = code[from...].firstIndex(where: { $0.contains(pattern) }) { return (path, found + 1) }
    }
    return nil
  }

  /// `Type.member(labels:)` as its type (when named) and member base name
  /// (nil for a type alone).
  static func split(_ declaration: String) -> (type: String?, member: String?) {
    let name = declaration.split(separator: "(", maxSplits: 1).first.map(String.init) ?? declaration
    let parts = name.split(separator: ".").map(String.init)
    guard let last = parts.last else { return (nil, nil) }
    if parts.count == 1 {
      // A lone capitalised name is a type; anything else, a member.
      return last.first?.isUppercase == true && !declaration.contains("(") ? (last, nil) : (nil, last)
    }
    return (parts.dropLast().last, last)
  }

  /// A pattern built from names read out of check IDs and traits: each name
  /// goes in through ``escaped(_:)``, and a pattern that still does not
  /// compile matches nothing rather than stopping the runner.
  static func regex(_ pattern: String) -> Regex<AnyRegexOutput>? {
    try? Regex(pattern)
  }

  /// `name` as a literal inside a pattern.
  static func escaped(_ name: String) -> String {
    NSRegularExpression.escapedPattern(for: name)
  }

  /// The first argument label of `member(label:other:)`, if it names one.
  static func firstLabel(_ declaration: String) -> String? {
    declaration.firstMatch(of: /\(([A-Za-z_]\w*):/).map { String($0.output.1) }
  }

  /// The string given to `.exercising(…)` in `text`, if any.
  static func traitArgument(in text: String) -> String? {
    text.firstMatch(of: /\.exercising\(\s*"([^"\\]+)"\s*\)/).map { String($0.output.1) }
  }
}
