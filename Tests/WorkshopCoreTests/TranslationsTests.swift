import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopMaintainer

/// One kind of drift between a translation and its English source.
struct Drift: Sendable, CustomTestStringConvertible {
  var name: String
  /// The translation below, changed to drift this way.
  var change: @Sendable (String) -> String
  /// What `verify` says about it.
  var said: String
  var testDescription: String { name }
}

@Suite("Translations stay what their English says")
struct TranslationsTests {
  static let english = """
    # Chapter 01: Adder

    ## Your task

    Fix `add(_:_:)` in `Adder.swift`: cancellation must reach the 2 loads.

    ```swift
    let sum = add(2, 3)
    ```

    - **Adds two numbers**: and returns 5.
    """

  static let translated = """
    <!-- translated from Chapters/01-Adder/README.md 1a2b -->
    # 第 01 章：加法器

    ## 你的任务

    修好 `Adder.swift` 里的 `add(_:_:)`：取消必须传到那 2 个加载。

    ```swift
    let sum = add(2, 3)
    ```

    - **Adds two numbers**：返回 5。
    """

  static let terms = [(english: "cancellation", chinese: "取消")]

  func problems(_ translated: String, hash: String = "1a2b") -> [String] {
    Translations.problems(
      translated, of: Self.english, translation: "T", source: "Chapters/01-Adder/README.md", sourceHash: hash,
      terms: Self.terms, checks: ["Adds two numbers"])
  }

  @Test(
    "A translation made from the English as it is now, keeping its code, names, numbers and terms, passes")
  func faithful() {
    #expect(problems(Self.translated) == [])
  }

  @Test(
    "Each kind of drift fails, saying what to do",
    arguments: [
      Drift(
        name: "no record of the English", change: { String($0.drop { $0 != "\n" }.dropFirst()) },
        said: "T: its first line should say which English it translates:"),
      Drift(
        name: "a heading left out", change: { $0.replacingOccurrences(of: "## 你的任务\n", with: "") },
        said: "T: its headings are not those of"),
      Drift(
        name: "code translated", change: { $0.replacingOccurrences(of: "let sum", with: "let 和") },
        said: "T: code block 1 differs from"),
      Drift(
        name: "inline code left out", change: { $0.replacingOccurrences(of: "`Adder.swift`", with: "文件") },
        said: "T: lacks inline code of Chapters/01-Adder/README.md: `Adder.swift`"),
      Drift(
        name: "a check name translated",
        change: { $0.replacingOccurrences(of: "Adds two numbers", with: "两数相加") },
        said: "T: lacks the check name \"Adds two numbers\""),
      Drift(
        name: "a number changed", change: { $0.replacingOccurrences(of: "返回 5", with: "返回五") },
        said: "T: lacks numbers of Chapters/01-Adder/README.md: 5"),
      Drift(
        name: "a glossary term not used", change: { $0.replacingOccurrences(of: "取消", with: "撤销") },
        said: "T: Chapters/01-Adder/README.md says \"cancellation\", and the glossary's \"取消\" is not used"),
    ])
  func drift(_ drift: Drift) {
    let found = problems(drift.change(Self.translated))
    #expect(found.count == 1, "\(found)")
    #expect(found.first?.hasPrefix(drift.said) == true, "\(found)")
  }

  @Test("A translation whose English changed since is named, with the first line to write once it is updated")
  func stale() {
    #expect(
      problems(Self.translated, hash: "9f9f") == [
        "T: Chapters/01-Adder/README.md changed since it was translated (from 1a2b, now 9f9f): bring the"
          + " translation up to date, then make its first line <!-- translated from Chapters/01-Adder/README.md 9f9f -->"
      ])
  }

  @Test("A file name in prose must be in the translation too; a link may point at the other language")
  func fileNames() {
    let english = "Open Chapters/01-Adder/Adder.swift. In Chinese: [README.zh-Hans.md](README.zh-Hans.md)."
    let faithful = "打开 Chapters/01-Adder/Adder.swift。English: [README.md](README.md)。"
    let lost = "打开加法器的文件。English: [README.md](README.md)。"
    let check = { (text: String) in
      Translations.contentProblems(text, of: english, translation: "T", source: "README.md", terms: [])
    }
    #expect(check(faithful) == [])
    #expect(check(lost).contains("T: lacks file names of README.md: Chapters/01-Adder/Adder.swift"))
  }

  @Test("A line that opens with inline code in four backticks is prose, not a code fence")
  func inlineFenceIsProse() {
    let (text, code) = Translations.split(
      "Quote it as ```` ```swift Sources/A.swift ````, then:\n```swift\nlet a = 1\n```\n```` ```swift sketch ```` is a sketch."
    )
    #expect(code == ["let a = 1"])
    #expect(Translations.inlineCode(in: "a `x` and ```` ```swift y ```` b") == ["x", " ```swift y "])
    #expect(text.contains("is a sketch"))
  }

  @Test("The glossary's table gives its fixed terms")
  func glossary() {
    let terms = Translations.terms(
      inGlossary: "| English | 中文 | 说明 |\n| --- | --- | --- |\n| Data race | 数据竞争 | |\n| check | 检查 | x |\n")
    #expect(terms.map(\.english) == ["data race", "check"])
    #expect(terms.map(\.chinese) == ["数据竞争", "检查"])
  }

  static let deck = """
    ---
    marp: true
    style: |
      section { font-size: 28px; }
    ---

    # Chapter 01: Adder

    <!--
    Say hello.
    -->

    ---

    ## Your turn

    Fix `add(_:_:)`.

    <!--
    Give them 2 minutes.
    -->
    """

  static let translatedDeck = """
    ---
    # translated from Slides/01-Adder.md 1a2b
    marp: true
    style: |
      section { font-size: 28px; }
    ---

    # 第 01 章：加法器

    <!--
    打个招呼。
    -->

    ---

    ## 轮到你了

    修好 `add(_:_:)`。

    <!--
    给大家 2 分钟。
    -->
    """

  func deckProblems(_ translated: String) -> [String] {
    Translations.problems(
      translated, of: Self.deck, translation: "T", source: "Slides/01-Adder.md", sourceHash: "1a2b", terms: []
    )
  }

  @Test(
    "A translated deck keeps its front matter, its slides and their notes, and says in a YAML comment what it translates"
  )
  func faithfulDeck() {
    #expect(deckProblems(Self.translatedDeck) == [])
  }

  static let deckDrifts = [
    Drift(
      name: "a slide left out", change: { String($0[..<$0.range(of: "\n---\n\n## ")!.lowerBound]) },
      said: "has 1 slides"),
    Drift(
      name: "notes left out", change: { $0.replacingOccurrences(of: "<!--\n给大家 2 分钟。\n-->", with: "2") },
      said: "slide 2 has no speaker notes"),
    Drift(
      name: "another style", change: { $0.replacingOccurrences(of: "28px", with: "20px") },
      said: "its front matter"),
    Drift(
      name: "no marker",
      change: { $0.replacingOccurrences(of: "# translated from Slides/01-Adder.md 1a2b\n", with: "") },
      said: "should say which English"),
    Drift(
      name: "a stale marker", change: { $0.replacingOccurrences(of: "1a2b", with: "9f9f") },
      said: "changed since it was translated"),
  ]

  @Test("A deck's drift fails with its message", arguments: deckDrifts)
  func deckDrift(_ drift: Drift) {
    let found = deckProblems(drift.change(Self.translatedDeck))
    #expect(found.contains { $0.contains(drift.said) }, "\(drift.name): \(found)")
  }

  @Test("The course's translations match their English")
  func course() throws {
    let workspace = try Workspace.locate(from: URL(fileURLWithPath: #filePath))
    let translations = Translations(workspace: workspace)
    #expect(!translations.pairs().isEmpty)
    #expect(!translations.glossaryTerms().isEmpty)
    let names = try declaredCheckNames(workspace).values.flatMap { $0 }
    #expect(translations.problems(checks: names) == [])
    // Every graded item by name: the chapters' checks, and what chapter 13 grades a learner's checks on.
    var graded = try declaredCheckNames(workspace)
    let grader = Grader(workspace: workspace, variant: .chapters)
    for chapter in workspace.curriculum.chapters where chapter.writesChecks {
      graded[chapter.number] = try grader.gradedItems(of: chapter).map(\.name)
    }
    #expect(translations.courseTextProblems(checks: graded) == [])
  }
}

/// The hints, titles and summaries in Chinese (`curriculum.zh-Hans.json`).
@Suite("The course's own words in Chinese stay what curriculum.json says")
struct CourseTextTests {
  static let hint = "Call `group.cancelAll()` before the 2 loads: cancellation stops the loser."
  static let curriculum = Curriculum(
    title: "Workshop",
    chapters: [
      Curriculum.Chapter(
        number: 1, name: "Adder", title: "Adder", summary: "Adds.", files: ["Adder.swift"],
        hints: [Curriculum.Hint(stringLiteral: hint)], starterFails: [])
    ])
  static let terms = [(english: "cancellation", chinese: "取消")]

  /// A faithful translation of every text.
  static var file: CourseText.File {
    CourseText.File(
      language: "zh-Hans",
      texts: [
        "title": .init(source: CourseText.hash("Workshop"), text: "工作坊"),
        "01/title": .init(source: CourseText.hash("Adder"), text: "加法器"),
        "01/summary": .init(source: CourseText.hash("Adds."), text: "做加法。"),
        "01/adder/hint 1": .init(
          source: CourseText.hash(hint), text: "在那 2 个加载之前调用 `group.cancelAll()`：取消会叫停输的一方。"),
      ])
  }

  func problems(_ file: CourseText.File) -> [String] {
    Translations.courseTextProblems(file, of: Self.curriculum, name: "T", terms: Self.terms)
  }

  @Test("Texts translated from the English as it is now, keeping code, numbers and terms, pass")
  func faithful() {
    #expect(problems(Self.file) == [])
  }

  /// One kind of drift of the course's own words.
  struct TextDrift: Sendable, CustomTestStringConvertible {
    var name: String
    var change: @Sendable (inout CourseText.File) -> Void
    var said: String
    var testDescription: String { name }
  }

  static let drifts = [
    TextDrift(
      name: "a hint left out", change: { $0.texts["01/adder/hint 1"] = nil },
      said: "lacks \"01/adder/hint 1\""),
    TextDrift(
      name: "a hint made from other English", change: { $0.texts["01/adder/hint 1"]?.source = "1a2b" },
      said: "was translated from other English"),
    TextDrift(
      name: "a text the course no longer has",
      change: { $0.texts["01/adder/hint 2"] = .init(source: "0", text: "多余") },
      said: "which curriculum.json no longer has"),
    TextDrift(
      name: "inline code changed",
      change: { $0.texts["01/adder/hint 1"]?.text = "在那 2 个加载之前调用 `cancelAll()`：取消会叫停输的一方。" },
      said: "lacks inline code"),
    TextDrift(
      name: "a number lost",
      change: { $0.texts["01/adder/hint 1"]?.text = "在加载之前调用 `group.cancelAll()`：取消会叫停输的一方。" },
      said: "lacks numbers"),
    TextDrift(
      name: "a glossary term not used",
      change: { $0.texts["01/adder/hint 1"]?.text = "在那 2 个加载之前调用 `group.cancelAll()`：撤销会叫停输的一方。" },
      said: "the glossary's \"取消\" is not used"),
    TextDrift(name: "another language", change: { $0.language = "zh-Hant" }, said: "not \"zh-Hans\""),
  ]

  @Test("Each kind of drift fails with its message", arguments: drifts)
  func drift(_ drift: TextDrift) {
    var file = Self.file
    drift.change(&file)
    let found = problems(file)
    #expect(found.contains { $0.contains(drift.said) }, "\(drift.name): \(found)")
  }

  @Test("Each graded check needs its Chinese name, and a name the course no longer grades is an error")
  func checkNames() {
    var file = Self.file
    let checks = [1: ["Adds two numbers"]]
    let problems = { (file: CourseText.File) in
      Translations.courseTextProblems(file, of: Self.curriculum, name: "T", terms: Self.terms, checks: checks)
    }
    #expect(
      problems(file) == [
        "T: lacks \"01/check/Adds two numbers\" (translate curriculum.json's text, and record \"source\": \"\(CourseText.hash("Adds two numbers"))\")"
      ])
    file.texts["01/check/Adds two numbers"] = .init(
      source: CourseText.hash("Adds two numbers"), text: "把两个数相加")
    #expect(problems(file) == [], "the English name need not be in its translation")
    file.texts["01/check/Subtracts"] = .init(source: CourseText.hash("Subtracts"), text: "相减")
    #expect(problems(file) == ["T: has \"01/check/Subtracts\", which is no check of the course any more"])
  }

  @Test("A text whose English changed is shown in English, never out of date")
  func staleFallsBack() {
    var file = Self.file
    file.texts["01/summary"]?.source = "1a2b"
    let text = CourseText(curriculum: Self.curriculum, language: .chinese, texts: file.texts)
    let chapter = Self.curriculum.chapters[0]
    #expect(text.summary(chapter) == "Adds.")
    #expect(text.title(chapter) == "加法器")
    #expect(text.hint(0, of: chapter.allExercises[0], in: chapter).contains("取消"))
    #expect(
      CourseText(curriculum: Self.curriculum, language: .english, texts: file.texts).title(chapter) == "Adder"
    )
  }
}
