import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

private func chapter(_ number: Int, _ name: String, _ title: String) -> Curriculum.Chapter {
  Curriculum.Chapter(
    number: number, name: name, title: title, summary: "", files: ["A.swift"], hints: ["1", "2", "3"],
    starterFails: ["x"])
}

private let sample = Curriculum(
  title: "Sample",
  chapters: [
    chapter(4, "DebouncedSearch", "Debounced search"),
    chapter(6, "Continuations", "Continuations, exactly once"),
    chapter(10, "IdempotentSubmission", "Idempotent submission"),
  ])

@Suite("Curriculum manifest")
struct CurriculumTests {
  @Test("The repository's .gitignore keeps a class's reports (grade's default folder) out of the course")
  func reportsIgnored() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let lines = try String(contentsOf: root.appendingPathComponent(".gitignore"), encoding: .utf8)
      .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    #expect(lines.contains(GradeCommand.defaultReportDirectory + "/"))
  }

  @Test("Folders, modules and slides are derived from number and name")
  func derivedNames() {
    let search = sample.chapters[0]
    #expect(search.folder == "04-DebouncedSearch")
    #expect(search.testModule == "DebouncedSearchTests")
    #expect(search.testFolder == "04-DebouncedSearchTests")
    #expect(search.slides == "04-DebouncedSearch.md")
    #expect(sample.chapters[2].folder == "10-IdempotentSubmission")
  }

  @Test(
    "A chapter can be named by number, name, folder or title, in any case",
    arguments: ["4", "04", "DebouncedSearch", "debounced-search", "04-DebouncedSearch", "Debounced Search"])
  func matching(query: String) {
    #expect(sample.chapter(matching: query)?.number == 4)
  }

  @Test("An unknown chapter gets the closest suggestion, or none")
  func suggestions() {
    #expect(sample.chapter(matching: "debounce") == nil)
    #expect(sample.suggestion(for: "debounce")?.number == 4)
    #expect(sample.suggestion(for: "continuation")?.number == 6)
    #expect(sample.suggestion(for: "xyzzy") == nil)
    #expect(sample.chapter(matching: "99") == nil)
  }

  @Test("The manifest decodes from JSON")
  func decodes() throws {
    let data = try JSONEncoder().encode(sample)
    #expect(try Curriculum.decode(data) == sample)
  }

  @Test(
    "Invalid manifests are rejected with a message that says where",
    arguments: [
      (#"{"title": "T"}"#, "missing \"chapters\""),
      (#"{"title": "T", "chapters": [{"number": "four"}]}"#, "wrong type at .chapters[0].number"),
      ("not json", "is not valid JSON"),
      (
        #"{"title": "T", "chapters": [{"number": 1, "name": "A", "title": "a", "summary": "", "files": [], "hints": [], "starterFails": []}, {"number": 1, "name": "B", "title": "b", "summary": "", "files": [], "hints": [], "starterFails": []}]}"#,
        "chapter number 1 appears twice"
      ),
      (
        #"{"title": "T", "chapters": [{"number": 1, "name": "4Bad", "title": "a", "summary": "", "files": [], "hints": [], "starterFails": []}]}"#,
        "must be letters and digits"
      ),
    ])
  func invalid(json: String, fragment: String) {
    do {
      _ = try Curriculum.decode(Data(json.utf8))
      Issue.record("accepted an invalid manifest")
    } catch {
      #expect(String(describing: error).contains(fragment), "\(error)")
    }
  }

  @Test("Package.swift's chapter list is written from curriculum.json, and nothing else in it changes")
  func packageManifest() throws {
    var curriculum = sample
    let manifest = PackageManifest(
      text: "// swift-tools-version: 6.2\nlet x = 1\n\(PackageManifest.begin)\nlet old = 0\n"
        + "\(PackageManifest.end)\nlet y = 2\n")
    #expect(!manifest.isCurrent(for: curriculum))
    let written = try manifest.updated(for: curriculum)
    #expect(written.isCurrent(for: curriculum))
    #expect(written.text.hasPrefix("// swift-tools-version: 6.2\nlet x = 1\n\(PackageManifest.begin)\n"))
    #expect(written.text.hasSuffix("\n\(PackageManifest.end)\nlet y = 2\n"))
    #expect(try written.updated(for: curriculum) == written, "Writing it again changes nothing")
    #expect(
      written.listedChapters == ["let courseChapters: [Chapter] = ["]
        + curriculum.chapters.map { "  Chapter(number: \($0.number), name: \"\($0.name)\")," } + ["]"])

    curriculum.chapters[0].component = "SignupForm"
    curriculum.chapters[0].xcodeAppDefaults = true
    #expect(!written.isCurrent(for: curriculum), "A chapter's build settings are part of the list")
    let line = try #require(try written.updated(for: curriculum).listedChapters?[1])
    #expect(line.hasSuffix(", component: \"SignupForm\", xcodeAppDefaults: true),"))

    // A chapter that ships more documents than its README lists them, so
    // that the manifest's text (SwiftPM's cache key) changes with them.
    curriculum.chapters[1].starter = ["A.swift": "1", "README.md": "2", "README.zh-Hans.md": "3"]
    let withDocuments = try #require(try written.updated(for: curriculum).listedChapters?[2])
    #expect(withDocuments.hasSuffix(", documents: [\"README.md\", \"README.zh-Hans.md\"]),"))

    #expect(throws: CurriculumError.self) { try PackageManifest(text: "let x = 1\n").updated(for: sample) }
    #expect(PackageManifest(text: "let x = 1\n").listedChapters == nil)
  }

  @Test("The course's own Package.swift lists the chapters as its curriculum.json does")
  func courseManifestIsCurrent() throws {
    let workspace = try Workspace.locate(from: courseRoot)
    let manifest = try PackageManifest(contentsOf: workspace.url(PackageManifest.fileName))
    #expect(manifest.isCurrent(for: workspace.curriculum), "run 'swift run workshop-instructor dev package'")
  }

  @Test("Outside a workshop, locating one fails with a clear message")
  func noWorkshop() {
    #expect {
      try Workspace.locate(from: URL(fileURLWithPath: "/"))
    } throws: { error in
      String(describing: error).contains("no workshop here")
    }
  }
}
