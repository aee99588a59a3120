import WorkshopCore

/// The order in which `verify` grades each chapter's fixes: the one that
/// compiles the least, for the same verdicts.
extension Verifier {
  /// The order in which a chapter's fixes are graded, one per round.
  ///
  /// A round's build compiles a chapter's checks again only when the fix
  /// changes the chapter's interface (a stored property, a helper, a
  /// signature) from the round before: about 1.5 s of a core per chapter,
  /// against 0.5 s for the chapter itself. So the fixes that keep the
  /// solution's declarations come first, then the others grouped by the
  /// declarations they have (``declarations(of:)``), groups holding right
  /// fixes first. Within a group, right fixes lead: every one of them
  /// reaches the ThreadSanitizer pass, whose builds then bunch up in the
  /// same rounds. The order changes only how much is compiled, never a
  /// verdict: each fix is graded on its own build.
  static func buildOrder(_ mutations: [Mutation], solution: [String: String]) -> [Mutation] {
    let reference = declarations(of: solution)
    var groups: [String: [Mutation]] = [:]
    var keys: [String] = []
    for mutation in mutations {
      let key = (try? mutation.apply(to: solution)).map(declarations(of:)) ?? "\u{0}" + mutation.name
      if groups[key] == nil { keys.append(key) }
      groups[key, default: []].append(mutation)
    }
    func rank(_ key: String) -> Int {
      key == reference ? 0 : groups[key]!.contains { $0.kind == .right } ? 1 : 2
    }
    return keys.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
      .flatMap {
        groups[$0.element]!.filter { $0.kind == .right } + groups[$0.element]!.filter { $0.kind != .right }
      }
  }

  /// What of a chapter's code can reach its compiled interface: its tokens
  /// with every body of a function, initializer, subscript or accessor left
  /// out. Two versions with the same declarations almost always compile to
  /// the same interface; when not, a round compiles a little more.
  static func declarations(of sources: [String: String]) -> String {
    let bodies: Set<String> = [
      "func", "init", "deinit", "subscript", "get", "set", "willSet", "didSet", "_read", "_modify",
    ]
    var text = ""
    for path in sources.keys.sorted() {
      text += "\u{1}" + path
      let tokens = SwiftTokens.read(sources[path]!)
      var index = 0
      var inSignature = false
      while index < tokens.count {
        let token = tokens[index]
        if token.kind == .identifier, bodies.contains(token.text), !token.backticked { inSignature = true }
        if inSignature, token.kind == .punctuation, token.text == "{" {
          var depth = 1
          index += 1
          while index < tokens.count, depth > 0 {
            if tokens[index].kind == .punctuation, tokens[index].text == "{" { depth += 1 }
            if tokens[index].kind == .punctuation, tokens[index].text == "}" { depth -= 1 }
            index += 1
          }
          text += " {}"
          inSignature = false
          continue
        }
        if token.kind == .punctuation, token.text == "}" || token.text == ";" { inSignature = false }
        text += " " + token.text
        index += 1
      }
    }
    return text
  }
}
