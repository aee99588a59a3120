import Foundation
import WorkshopCore

/// The course's Simplified Chinese translations, held to their English
/// sources so that the two languages cannot drift apart.
///
/// A translation sits beside its source (`README.zh-Hans.md` beside
/// `README.md`; a deck in `Slides/zh-Hans/`) and opens with the line that
/// records which English text it was made from:
///
/// ```
/// <!-- translated from README.md 4bd211abcc50efe1 -->
/// ```
///
/// `verify` fails when that English text has changed since, and when the
/// translation lacks something of it that a translation must keep: a
/// heading, a code block (word for word), inline code (identifiers, file
/// names, commands), a file name in prose, a check name, a number, or a
/// fixed term of `docs/glossary.zh-Hans.md`.
struct Translations {
  var workspace: Workspace

  /// The language code of the translations.
  static let language = "zh-Hans"
  static let glossary = "docs/glossary.zh-Hans.md"

  /// A translation and the English file it translates, relative to the course.
  struct Pair: Equatable {
    var translation: String
    var source: String
  }

  /// Every translation in the course, with its source.
  func pairs() -> [Pair] {
    var pairs: [Pair] = []
    let suffix = ".\(Self.language).md"
    var candidates = ["README\(suffix)"]
    for folder in ["Chapters", "docs"] {
      for name in Files.under(workspace.url(folder)) where name.hasSuffix(suffix) {
        candidates.append(folder + "/" + name)
      }
    }
    for relative in candidates where relative != Self.glossary {
      guard FileManager.default.fileExists(atPath: workspace.url(relative).path) else { continue }
      pairs.append(Pair(translation: relative, source: String(relative.dropLast(suffix.count)) + ".md"))
    }
    let decks = "Slides/\(Self.language)"
    for name in Files.under(workspace.url(decks), suffix: ".md") where !name.contains("/") {
      pairs.append(Pair(translation: "\(decks)/\(name)", source: "Slides/\(name)"))
    }
    return pairs.sorted { $0.translation < $1.translation }
  }

  /// The first line of a translation made from `source` whose content hashes to `hash`.
  static func marker(source: String, hash: String) -> String {
    "<!-- translated from \(source) \(hash) -->"
  }

  /// The first line of a translated deck's front matter: a YAML comment,
  /// which Marp ignores, where an HTML comment would be a speaker note.
  static func deckMarker(source: String, hash: String) -> String {
    "# translated from \(source) \(hash)"
  }

  /// What is wrong with the translations, one line each. `checks` are the
  /// course's check names (from its graded solutions), which stay English.
  func problems(checks: [String]) -> [String] {
    let terms = glossaryTerms()
    var problems: [String] = []
    for pair in pairs() {
      let sourceURL = workspace.url(pair.source)
      guard let english = try? String(contentsOf: sourceURL, encoding: .utf8),
        let translated = try? String(contentsOf: workspace.url(pair.translation), encoding: .utf8)
      else {
        problems.append("\(pair.translation): its English source \(pair.source) is missing")
        continue
      }
      let hash = ContentHash.of(sourceURL, now: Date())
      problems += Self.problems(
        translated, of: english, translation: pair.translation, source: pair.source, sourceHash: hash,
        terms: terms, checks: checks)
    }
    return problems
  }

  /// What is wrong with the course's own words in Chinese
  /// (`curriculum.zh-Hans.json`: see ``CourseText``): a text the English has
  /// and it lacks, one translated from other English, one the course no
  /// longer has, and each text's content (``contentProblems``).
  /// `checks` holds each chapter's graded items by name: each needs its
  /// Chinese too (`NN/check/<name>`).
  func courseTextProblems(checks: [Int: [String]]) -> [String] {
    let name = CourseText.fileName(.chinese)
    guard let data = try? Data(contentsOf: workspace.url(name)) else {
      return ["\(name) is missing: the hints, titles and summaries of curriculum.json in Chinese"]
    }
    do {
      let file = try JSONDecoder().decode(CourseText.File.self, from: data)
      return Self.courseTextProblems(
        file, of: workspace.curriculum, name: name, terms: glossaryTerms(), checks: checks)
    } catch {
      return ["\(name) cannot be read: \(error)"]
    }
  }

  static func courseTextProblems(
    _ file: CourseText.File, of curriculum: Curriculum, name: String,
    terms: [(english: String, chinese: String)], checks: [Int: [String]] = [:]
  ) -> [String] {
    var problems: [String] = []
    if file.language != language {
      problems.append("\(name): its \"language\" is \"\(file.language)\", not \"\(language)\"")
    }
    // A check's name is a text like the others; the check-name rule does not
    // apply to it (its English is a check name, which its Chinese translates).
    let checkNames = curriculum.chapters.flatMap { chapter in
      (checks[chapter.number] ?? []).map { (key: CourseText.checkKey($0, in: chapter), text: $0) }
    }
    let english = CourseText.englishTexts(of: curriculum) + checkNames
    let isCheckName = Set(checkNames.map(\.key))
    for (key, text) in english {
      let hash = CourseText.hash(text)
      guard let entry = file.texts[key], !entry.text.isEmpty else {
        problems.append(
          "\(name): lacks \"\(key)\" (translate curriculum.json's text, and record \"source\": \"\(hash)\")")
        continue
      }
      if entry.source != hash {
        problems.append(
          "\(name): \"\(key)\" was translated from other English (\(entry.source), now \(hash)):"
            + " translate it again, then record \"source\": \"\(hash)\"")
        continue
      }
      problems += contentProblems(
        entry.text, of: text, translation: "\(name) \"\(key)\"", source: "curriculum.json", terms: terms,
        checks: isCheckName.contains(key) ? [] : checks.values.flatMap { $0 })
    }
    let known = Set(english.map(\.key))
    for key in file.texts.keys.sorted() where !known.contains(key) {
      problems.append(
        key.contains("/check/")
          ? "\(name): has \"\(key)\", which is no check of the course any more"
          : "\(name): has \"\(key)\", which curriculum.json no longer has")
    }
    return problems
  }

  /// What is wrong with one translation of `english`.
  static func problems(
    _ translated: String, of english: String, translation: String, source: String, sourceHash: String,
    terms: [(english: String, chinese: String)], checks: [String] = []
  ) -> [String] {
    var problems: [String] = []
    // A deck opens with Marp's front matter, which must stay first: its
    // translation says what it translates in a YAML comment there, and keeps
    // the rest of it (the deck's style) as the English has it.
    let (englishFront, englishBody) = frontMatter(of: english)
    var (translatedFront, translatedBody) = frontMatter(of: translated)
    let isDeck = englishFront != nil
    let expected =
      isDeck ? deckMarker(source: source, hash: sourceHash) : marker(source: source, hash: sourceHash)
    let first: String
    if isDeck {
      let lines = (translatedFront ?? "").split(separator: "\n", omittingEmptySubsequences: false)
      first = lines.first.map(String.init) ?? ""
      translatedFront = lines.dropFirst().joined(separator: "\n")
    } else {
      first = translated.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
    }
    if let recorded = first.firstMatch(of: #/^(?:<!-- |# )translated from \S+ ([0-9a-f]+)(?: -->)?$/#) {
      if recorded.1 != sourceHash {
        problems.append(
          "\(translation): \(source) changed since it was translated (from \(recorded.1), now \(sourceHash)):"
            + " bring the translation up to date, then make its \(isDeck ? "front matter's first line" : "first line") \(expected)"
        )
      }
    } else {
      problems.append(
        "\(translation): its \(isDeck ? "front matter's first line" : "first line") should say which English it translates: \(expected)"
      )
    }
    if isDeck, translatedFront != englishFront {
      problems.append("\(translation): its front matter (the deck's settings and style) is not \(source)'s")
    }
    if isDeck {
      let (englishSlides, translatedSlides) = (
        SlideStructure.slides(of: english), SlideStructure.slides(of: translated)
      )
      if englishSlides.count != translatedSlides.count {
        problems.append(
          "\(translation): has \(translatedSlides.count) slides, \(source) has \(englishSlides.count)")
      } else {
        for (index, pair) in zip(englishSlides, translatedSlides).enumerated()
        where !pair.0.notes.isEmpty && pair.1.notes.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
          problems.append("\(translation): slide \(index + 1) has no speaker notes, and \(source)'s has")
        }
      }
    }
    let (englishText, englishCode) = split(englishBody)
    let (translatedText, translatedCode) = split(translatedBody)

    let headings = { (text: String) in
      text.split(separator: "\n").compactMap { line in line.firstMatch(of: #/^(#+) /#).map { $0.1.count } }
    }
    if headings(englishText) != headings(translatedText) {
      problems.append(
        "\(translation): its headings are not those of \(source) (levels \(headings(translatedText)),"
          + " English \(headings(englishText)))")
    }
    if englishCode != translatedCode {
      let index =
        zip(englishCode, translatedCode).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(englishCode.count, translatedCode.count)
      problems.append(
        "\(translation): code block \(index + 1) differs from \(source)'s (\(translatedCode.count) blocks,"
          + " English \(englishCode.count)); code is never translated")
    }
    return problems
      + contentProblems(
        translatedText, of: englishText, translation: translation, source: source, terms: terms,
        checks: checks)
  }

  /// What is wrong with a translated text of any kind (a document's prose, a
  /// hint): the inline code, check names, numbers and glossary terms of
  /// `english` it lacks.
  static func contentProblems(
    _ translatedText: String, of englishText: String, translation: String, source: String,
    terms: [(english: String, chinese: String)], checks: [String] = []
  ) -> [String] {
    var problems: [String] = []
    // Inline code may wrap onto the next line: compared with its spaces made one.
    let spans = { (text: String) in
      Set(inlineCode(in: text).map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") })
    }
    let missingSpans = spans(englishText).subtracting(spans(translatedText)).sorted()
    if !missingSpans.isEmpty {
      problems.append(
        "\(translation): lacks inline code of \(source): "
          + missingSpans.prefix(5).map { "`\($0)`" }.joined(separator: ", ")
          + (missingSpans.count > 5 ? " and \(missingSpans.count - 5) more" : ""))
    }
    // Check names stay in English: each one the English names is in the translation.
    let flat = { (text: String) in text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    let (englishFlat, translatedFlat) = (flat(englishText), flat(translatedText))
    for name in checks where englishFlat.contains(name) && !translatedFlat.contains(name) {
      problems.append("\(translation): lacks the check name \"\(name)\", which stays in English")
    }
    // File names in prose (inline code is compared above): a path or a name
    // with a file extension, `Chapters/04-DebouncedSearch/SearchModel.swift`.
    // Links are left out: a translation may link to the other language, and
    // its pictures sit one folder up (`../timelines/…`).
    let files = { (text: String) in
      Set(
        withoutInlineCode(text).replacing(#/!?\[[^\]]*\]\([^)]*\)/#, with: " ")
          .matches(
            of: #/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:swift|md|json|sh|svg|html|yml|mutation|cjs|png)\b/#
          )
          .map { String($0.0) })
    }
    let missingFiles = files(englishText).subtracting(files(translatedText)).sorted()
    if !missingFiles.isEmpty {
      problems.append(
        "\(translation): lacks file names of \(source): " + missingFiles.prefix(5).joined(separator: ", ")
          + (missingFiles.count > 5 ? " and \(missingFiles.count - 5) more" : ""))
    }
    let numbers = { (text: String) in
      Set(withoutInlineCode(text).matches(of: #/\b\d+(?:\.\d+)?\b/#).map { String($0.0) })
    }
    let missingNumbers = numbers(englishText).subtracting(numbers(translatedText)).sorted()
    if !missingNumbers.isEmpty {
      problems.append("\(translation): lacks numbers of \(source): \(missingNumbers.joined(separator: ", "))")
    }
    // Terms in prose: identifiers in inline code (`CancellationError`) are no terms.
    let lowered = withoutInlineCode(englishText).lowercased()
    for term in terms where lowered.firstMatch(of: wholeWord(term.english)) != nil {
      if !translatedText.contains(term.chinese) {
        problems.append(
          "\(translation): \(source) says \"\(term.english)\", and the glossary's \"\(term.chinese)\" is not used"
        )
      }
    }
    return problems
  }

  private static func wholeWord(_ term: String) -> Regex<Substring> {
    let escaped = NSRegularExpression.escapedPattern(for: term)
    // Swift's regexes have no lookbehind: the start of a word is a start of
    // the text or a character that is not a letter.
    return (try? Regex<Substring>("(?:^|[^A-Za-z-])" + escaped + "(?![A-Za-z-])")) ?? Regex(verbatim: term)
  }

  /// The glossary's fixed terms: its table's rows, English and Chinese.
  func glossaryTerms() -> [(english: String, chinese: String)] {
    guard let text = try? String(contentsOf: workspace.url(Self.glossary), encoding: .utf8) else { return [] }
    return Self.terms(inGlossary: text)
  }

  static func terms(inGlossary text: String) -> [(english: String, chinese: String)] {
    text.split(separator: "\n").compactMap { line in
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 4, !cells[1].isEmpty, cells[1] != "English", !cells[1].hasPrefix("---") else {
        return nil
      }
      return (cells[1].lowercased(), cells[2])
    }
  }
}

extension Verifier {
  /// The translations, each held to its English source (see ``Translations``).
  /// `checks` holds each chapter's check names, from its graded solution.
  func checkTranslations(_ tally: Tally, checks: [Int: [String]]) {
    let translations = Translations(workspace: workspace)
    let count = translations.pairs().count
    let names = checks.values.flatMap { $0 }
    // What a class is graded on, by name: a chapter's checks, or, where the
    // learner writes the checks, the items they are graded on (`grade`'s
    // reports name these, never the reference's own checks).
    var graded = checks
    let grader = Grader(workspace: workspace, variant: .chapters)
    for chapter in workspace.curriculum.chapters where chapter.writesChecks {
      graded[chapter.number] = (try? grader.gradedItems(of: chapter))?.map(\.name) ?? []
    }
    let problems = translations.problems(checks: names) + translations.courseTextProblems(checks: graded)
    let texts =
      CourseText.englishTexts(of: workspace.curriculum).count + graded.values.map(\.count).reduce(0, +)
    tally.item(
      problems.isEmpty,
      "the \(count) Chinese translation\(count == 1 ? "" : "s") (\(Translations.language)) and the \(texts) hints,"
        + " titles, summaries and check names of \(CourseText.fileName(.chinese)) match their English:"
        + " made from it as it is now, with its headings, slides and notes, code, file names, check names, numbers and the glossary's terms",
      problems)
  }
}
