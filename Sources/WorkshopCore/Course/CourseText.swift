import Foundation

/// The course's own words in the learner's language: the course's title,
/// each chapter's title and summary, and the hints.
///
/// English comes from `curriculum.json`; Simplified Chinese from
/// `curriculum.zh-Hans.json`, where each text is kept under a key with the
/// hash of the English it was translated from (and the checks' names, which
/// `grade`'s reports in Chinese give in both languages):
///
/// ```json
/// { "language": "zh-Hans",
///   "texts": {
///     "04/summary": { "source": "5c0f…", "text": "防抖搜索：…" },
///     "04/debouncedsearch/hint 2": { "source": "9e1a…", "text": "…" } } }
/// ```
///
/// A text whose English changed since (its hash is not the one recorded)
/// is shown in English, never out of date; `verify` fails until it is
/// translated again (see `Translations` in the maintainer's module).
///
/// ```swift
/// let text = CourseText(workspace: workspace, language: .chinese)
/// text.title(chapter)           // "防抖搜索"
/// text.hint(0, of: exercise, in: chapter)
/// ```
package struct CourseText: Sendable {
  /// One translated text, and the hash of the English it was made from.
  package struct Entry: Codable, Sendable, Equatable {
    package var source: String
    package var text: String

    package init(source: String, text: String) {
      self.source = source
      self.text = text
    }
  }

  /// The translation file's content.
  package struct File: Codable, Sendable, Equatable {
    package var language: String
    package var texts: [String: Entry]
  }

  /// The translation file of a language, at the course's root.
  package static func fileName(_ language: Language) -> String { "curriculum.\(language.rawValue).json" }

  package let curriculum: Curriculum
  package let language: Language
  /// The translated texts by key; empty in English.
  package let texts: [String: Entry]

  package init(curriculum: Curriculum, language: Language, texts: [String: Entry] = [:]) {
    self.curriculum = curriculum
    self.language = language
    self.texts = language == .english ? [:] : texts
  }

  /// The course's text in `language`, its translations read from the
  /// workspace (English where there are none).
  package init(workspace: Workspace, language: Language) {
    var texts: [String: Entry] = [:]
    if language != .english,
      let bytes = Files.readRegularFile(workspace.url(Self.fileName(language)), atMost: 4 << 20),
      let file = try? JSONDecoder().decode(File.self, from: Data(bytes)), file.language == language.rawValue
    {
      texts = file.texts
    }
    self.init(curriculum: workspace.curriculum, language: language, texts: texts)
  }

  /// The course's title.
  package var courseTitle: String { text("title", english: curriculum.title) }

  /// A chapter's title: `Debounced search`, `防抖搜索`.
  package func title(_ chapter: Curriculum.Chapter) -> String {
    text(Self.key(chapter, "title"), english: chapter.title)
  }

  /// A chapter's one-line summary.
  package func summary(_ chapter: Curriculum.Chapter) -> String {
    text(Self.key(chapter, "summary"), english: chapter.summary)
  }

  /// The hint at `index` (from 0) of one of the chapter's exercises.
  package func hint(_ index: Int, of exercise: Curriculum.Exercise, in chapter: Curriculum.Chapter) -> String
  {
    text(Self.hintKey(index, of: exercise, in: chapter), english: exercise.hints[index].text)
  }

  /// A check's name in Chinese, for the reports that show a learner a
  /// check in both languages (`grade --lang zh-Hans`); nil in English, and
  /// for a check with no translation from its name as it is now. A check's
  /// own name stays English everywhere else: it is what Xcode and
  /// `swift test` show.
  package func checkName(_ name: String, in chapter: Curriculum.Chapter) -> String? {
    translated(Self.checkKey(name, in: chapter), from: name)
  }

  /// `04/check/Sends nothing for keystrokes the user typed over`.
  package static func checkKey(_ name: String, in chapter: Curriculum.Chapter) -> String {
    "\(chapter.paddedNumber)/check/\(name)"
  }

  /// The text under `key` in this language, else `english`.
  private func text(_ key: String, english: String) -> String {
    translated(key, from: english) ?? english
  }

  /// The text under `key`, if it was translated from `english` as it is now
  /// (never in English: ``texts`` is empty then).
  private func translated(_ key: String, from english: String) -> String? {
    guard let entry = texts[key], entry.source == Self.hash(english), !entry.text.isEmpty else { return nil }
    return entry.text
  }

  // MARK: - Keys

  static func key(_ chapter: Curriculum.Chapter, _ what: String) -> String {
    "\(chapter.paddedNumber)/\(what)"
  }

  /// `04/debouncedsearch/hint 2`: hints counted from 1, as the learner sees them.
  static func hintKey(_ index: Int, of exercise: Curriculum.Exercise, in chapter: Curriculum.Chapter)
    -> String
  {
    "\(chapter.paddedNumber)/\(exercise.name)/hint \(index + 1)"
  }

  /// The hash a translation records of its English text.
  package static func hash(_ english: String) -> String { ContentHash.of(Data(english.utf8)) }

  /// Every English text of the course a translation must have, by key, in course order.
  package static func englishTexts(of curriculum: Curriculum) -> [(key: String, text: String)] {
    var texts: [(key: String, text: String)] = [("title", curriculum.title)]
    for chapter in curriculum.chapters {
      texts.append((key(chapter, "title"), chapter.title))
      texts.append((key(chapter, "summary"), chapter.summary))
      for exercise in chapter.allExercises {
        for (index, hint) in exercise.hints.enumerated() {
          texts.append((hintKey(index, of: exercise, in: chapter), hint.text))
        }
      }
    }
    return texts
  }
}
