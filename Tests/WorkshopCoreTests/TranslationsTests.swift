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

  @Test("The course's translations match their English")
  func course() throws {
    let workspace = try Workspace.locate(from: URL(fileURLWithPath: #filePath))
    let translations = Translations(workspace: workspace)
    #expect(!translations.pairs().isEmpty)
    #expect(!translations.glossaryTerms().isEmpty)
    #expect(translations.problems(checks: try declaredCheckNames(workspace).values.flatMap { $0 }) == [])
  }
}
