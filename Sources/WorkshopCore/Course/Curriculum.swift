import Foundation

/// The course: every chapter, its hints and what its starter is expected to fail.
///
/// Read from `curriculum.json` at the top of the repository, the single source
/// of truth that `Package.swift`, the grader and `verify` all share.
package struct Curriculum: Codable, Sendable, Equatable {
  /// The course's name.
  package var title: String
  /// The chapters, in course order.
  package var chapters: [Chapter]

  /// One chapter of the course.
  package struct Chapter: Codable, Sendable, Equatable {
    /// The chapter's number, fixed for the life of the course.
    package var number: Int
    /// The chapter's name in code: its module is `name`, its checks `nameTests`.
    var name: String
    /// The chapter's title in plain words.
    package var title: String
    /// One sentence saying what the chapter teaches.
    package var summary: String
    /// The files the learner edits, relative to the chapter's folder.
    package var files: [String]
    /// Hints from a nudge to nearly the answer, shown one at a time, for a
    /// chapter of one exercise; empty when the chapter lists `exercises`.
    package var hints: [Hint]
    /// The exercises of a chapter with several files, each with its own
    /// hints; empty for a chapter of one exercise.
    package var exercises: [Exercise]
    /// The display names of the checks the starter fails, as shipped.
    package var starterFails: [String]
    /// Whether the checks must also pass under ThreadSanitizer, with no race
    /// reported, for the chapter to be done.
    package var raceChecked: Bool
    /// The display names of the checks the starter passes, but fails under
    /// ThreadSanitizer: a data race and nothing else.
    package var starterRaces: [String]
    /// For a chapter in which the learner writes the checks: the module of
    /// the component they check (`Sources/<component>`). The chapter's folder
    /// is then a test target, `nameTests`, graded against the component and
    /// against broken versions of it (see ``Grader``).
    package var component: String?
    /// What each of the chapter's checks is worth in a class's grades
    /// (`workshop grade`); 1 unless `curriculum.json` says otherwise.
    package var pointsPerCheck: Double
    /// The chapter's files as the course ships them: the content hash of each
    /// file in its `Chapters/` folder, by name (see ``Starters``).
    package var starter: [String: String]
    /// Set only in the runner's own fixtures: the chapter's code attacks the
    /// grader on purpose, with what ``ChapterRules`` refuses, so that the
    /// defenses behind the rules (the sandbox, the stream's checks, the
    /// run's witness) are each tested on their own.
    package var attacksTheGrader: Bool = false
    /// Set when the chapter compiles as a new Xcode 26 app target does
    /// (default main-actor isolation, Approachable Concurrency) rather than
    /// with SwiftPM's defaults: `Package.swift` gives its target those
    /// settings (see ``PackageManifest``).
    var xcodeAppDefaults: Bool = false

    package init(
      number: Int, name: String, title: String, summary: String, files: [String],
      hints: [Hint], starterFails: [String], raceChecked: Bool = false, starterRaces: [String] = [],
      component: String? = nil, pointsPerCheck: Double = 1, starter: [String: String] = [:],
      exercises: [Exercise] = []
    ) {
      self.exercises = exercises
      self.starter = starter
      self.component = component
      self.pointsPerCheck = pointsPerCheck
      self.number = number
      self.name = name
      self.title = title
      self.summary = summary
      self.files = files
      self.hints = hints
      self.starterFails = starterFails
      self.raceChecked = raceChecked
      self.starterRaces = starterRaces
    }

    private enum CodingKeys: String, CodingKey {
      case number, name, title, summary, files, hints, starterFails, raceChecked, starterRaces, component
      case pointsPerCheck, starter, exercises, attacksTheGrader, xcodeAppDefaults
    }

    package init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      self.init(
        number: try container.decode(Int.self, forKey: .number),
        name: try container.decode(String.self, forKey: .name),
        title: try container.decode(String.self, forKey: .title),
        summary: try container.decode(String.self, forKey: .summary),
        files: try container.decode([String].self, forKey: .files),
        hints: try container.decodeIfPresent([Hint].self, forKey: .hints) ?? [],
        starterFails: try container.decode([String].self, forKey: .starterFails),
        raceChecked: try container.decodeIfPresent(Bool.self, forKey: .raceChecked) ?? false,
        starterRaces: try container.decodeIfPresent([String].self, forKey: .starterRaces) ?? [],
        component: try container.decodeIfPresent(String.self, forKey: .component),
        pointsPerCheck: try container.decodeIfPresent(Double.self, forKey: .pointsPerCheck) ?? 1,
        starter: try container.decodeIfPresent([String: String].self, forKey: .starter) ?? [:],
        exercises: try container.decodeIfPresent([Exercise].self, forKey: .exercises) ?? [])
      attacksTheGrader = try container.decodeIfPresent(Bool.self, forKey: .attacksTheGrader) ?? false
      xcodeAppDefaults = try container.decodeIfPresent(Bool.self, forKey: .xcodeAppDefaults) ?? false
    }

    /// The chapter's exercises: those listed, or the chapter itself as one.
    package var allExercises: [Exercise] {
      guard exercises.isEmpty else { return exercises }
      return [Exercise(name: name.lowercased(), file: files.first ?? "", suites: [], hints: hints)]
    }

    /// The two-digit number, as in folder names: `04`.
    package var paddedNumber: String { number < 10 ? "0\(number)" : "\(number)" }
    /// The folder under `Chapters/` and `Solutions/`: `04-DebouncedSearch`.
    package var folder: String { "\(paddedNumber)-\(name)" }
    /// The test module holding the chapter's checks.
    package var testModule: String { "\(name)Tests" }
    /// Whether the learner writes this chapter's checks (it has a component).
    package var writesChecks: Bool { component != nil }
    /// The module built from the chapter's folder: the chapter's code, or,
    /// when the learner writes the checks, their test module.
    package var codeModule: String { writesChecks ? testModule : name }
    /// The folder of the checks under `Tests/`.
    var testFolder: String { "\(folder)Tests" }
    /// The slide deck under `Slides/`.
    var slides: String { "\(folder).md" }
  }
}

extension Curriculum {
  /// One hint: its text and, when it helps with some of the exercise's
  /// checks only, which (their function names, as in `profileOnly`).
  ///
  /// In `curriculum.json`, a hint about the whole exercise is a string; one
  /// about some checks is `{"text": "…", "about": ["profileOnly", …]}`.
  package struct Hint: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    package var text: String
    /// The checks it is about; empty when it is about all of them.
    package var about: [String]

    init(_ text: String, about: [String] = []) {
      self.text = text
      self.about = about
    }

    package init(stringLiteral text: String) { self.init(text) }

    enum CodingKeys: String, CodingKey { case text, about }

    package init(from decoder: any Decoder) throws {
      if let text = try? decoder.singleValueContainer().decode(String.self) {
        self.init(text)
        return
      }
      let container = try decoder.container(keyedBy: CodingKeys.self)
      self.init(
        try container.decode(String.self, forKey: .text),
        about: try container.decodeIfPresent([String].self, forKey: .about) ?? [])
    }

    package func encode(to encoder: any Encoder) throws {
      if about.isEmpty {
        var container = encoder.singleValueContainer()
        try container.encode(text)
      } else {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encode(about, forKey: .about)
      }
    }

    /// Whether it helps with any of the checks with Swift Testing IDs `ids`.
    package func isAbout(anyOf ids: some Collection<String>) -> Bool {
      about.isEmpty || ids.contains { id in about.contains { id.contains("/\($0)(") } }
    }
  }

  /// One exercise of a chapter: a file to fix, the checks that grade it and its hints.
  package struct Exercise: Codable, Sendable, Equatable {
    /// What the learner types to pick it: `hint 02 --exercise mirror`.
    package var name: String
    /// The file to fix, in the chapter's folder.
    package var file: String
    /// The suites (type names) of the exercise's checks.
    package var suites: [String]
    /// Hints from a nudge to nearly the answer; the last one starts "Nearly there".
    package var hints: [Hint]

    /// Whether the check with Swift Testing's `id` grades this exercise.
    package func owns(checkID id: String) -> Bool {
      guard !suites.isEmpty else { return true }
      let path = id.split(separator: "/").first.map { $0.split(separator: ".").dropFirst() } ?? []
      let components = path.map(String.init) + id.split(separator: "/").dropFirst().map(String.init)
      return suites.contains { components.contains($0) }
    }
  }
}

/// Why the curriculum could not be read.
package struct CurriculumError: Error, CustomStringConvertible, Equatable {
  package var description: String

  package init(description: String) { self.description = description }
}

extension Curriculum {
  /// The manifest's file name, at the top of the repository.
  static let fileName = "curriculum.json"

  /// Reads and validates the manifest at `url`.
  static func load(from url: URL) throws -> Curriculum {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw CurriculumError(description: "cannot read \(url.path): \(error.localizedDescription)")
    }
    return try decode(data, source: url.lastPathComponent)
  }

  /// Decodes and validates a manifest.
  static func decode(_ data: Data, source: String = fileName) throws -> Curriculum {
    let curriculum: Curriculum
    do {
      curriculum = try JSONDecoder().decode(Curriculum.self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
      throw CurriculumError(
        description: "\(source): missing \"\(key.stringValue)\" at \(path(context.codingPath))")
    } catch let DecodingError.typeMismatch(_, context) {
      throw CurriculumError(
        description: "\(source): wrong type at \(path(context.codingPath)): \(context.debugDescription)")
    } catch {
      throw CurriculumError(description: "\(source) is not valid JSON: \(error.localizedDescription)")
    }
    try curriculum.validate(source: source)
    return curriculum
  }

  private static func path(_ codingPath: [any CodingKey]) -> String {
    let parts = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
    return parts.isEmpty ? "the top level" : parts.joined()
  }

  /// Checks what the build and the grader rely on.
  func validate(source: String) throws {
    var numbers = Set<Int>()
    var names = Set<String>()
    for chapter in chapters {
      guard (1...99).contains(chapter.number) else {
        throw CurriculumError(description: "\(source): chapter number \(chapter.number) is not in 1...99")
      }
      guard numbers.insert(chapter.number).inserted else {
        throw CurriculumError(description: "\(source): chapter number \(chapter.number) appears twice")
      }
      guard let first = chapter.name.unicodeScalars.first,
        CharacterSet.letters.contains(first),
        chapter.name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) })
      else {
        throw CurriculumError(
          description:
            "\(source): chapter name \"\(chapter.name)\" must be letters and digits, starting with a letter")
      }
      guard chapter.pointsPerCheck >= 0, chapter.pointsPerCheck.isFinite else {
        throw CurriculumError(
          description:
            "\(source): chapter \(chapter.number)'s pointsPerCheck must be a number of points, 0 or more")
      }
      let exerciseNames = chapter.exercises.map(\.name)
      guard Set(exerciseNames).count == exerciseNames.count,
        chapter.exercises.allSatisfy({ !$0.hints.isEmpty })
      else {
        throw CurriculumError(
          description: "\(source): chapter \(chapter.number)'s exercises need different names and hints each")
      }
      guard names.insert(chapter.name.lowercased()).inserted else {
        throw CurriculumError(description: "\(source): chapter name \"\(chapter.name)\" appears twice")
      }
    }
  }

  /// Finds the chapter a learner means: `4`, `04`, `DebouncedSearch`,
  /// `debounced-search` or `04-DebouncedSearch`, in any case.
  func chapter(matching query: String) -> Chapter? {
    // A tab-completed folder path: `Chapters/04-DebouncedSearch/`.
    let query = query.split(separator: "/").last.map(String.init) ?? query
    let key = Self.normalized(query)
    if let number = Int(query.trimmingCharacters(in: .whitespaces)) {
      return chapters.first { $0.number == number }
    }
    return chapters.first {
      Self.normalized($0.name) == key || Self.normalized($0.folder) == key
        || Self.normalized($0.title) == key
    }
  }

  /// The chapter closest to a query that matched nothing, to suggest it.
  func suggestion(for query: String) -> Chapter? {
    let key = Self.normalized(query)
    guard !key.isEmpty else { return nil }
    let scored = chapters.map { chapter -> (Chapter, Int) in
      let candidates = [chapter.name, chapter.folder, chapter.title].map(Self.normalized)
      let best =
        candidates.map { candidate -> Int in
          if candidate.contains(key) || key.contains(candidate) { return 0 }
          return editDistance(key, candidate)
        }.min() ?? .max
      return (chapter, best)
    }
    guard let (chapter, distance) = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return distance <= max(2, key.count / 3) ? chapter : nil
  }

  private static func normalized(_ text: String) -> String {
    String(text.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
  }
}

/// The Levenshtein distance between two strings.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  for i in 1...a.count {
    var current = [i] + Array(repeating: 0, count: b.count)
    for j in 1...b.count {
      let cost = a[i - 1] == b[j - 1] ? 0 : 1
      current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    }
    previous = current
  }
  return previous[b.count]
}
