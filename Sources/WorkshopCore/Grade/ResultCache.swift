import Foundation

/// The last results of chapters whose inputs have not changed since, so
/// that the progress table grades only what changed.
///
/// A chapter's result is reused when everything that can change it is the
/// same, by content: the chapter's own files, the course (its checks, the
/// kit, the runner's sources, the manifests, `curriculum.json`), the
/// toolchain, the runner itself and the grading options. Only results that
/// are facts of the code are kept: a chapter that crashed, ran out of time,
/// or has a check without a complete result is graded again every time.
///
/// ```swift
/// let cache = ResultCache(grader)
/// let inputs = cache.snapshot()  // before grading: a save meanwhile is a change
/// let (kept, stale) = cache.lookUp(workspace.curriculum.chapters, in: inputs)
/// let fresh = try grader.grade(stale)
/// cache.store(fresh, gradedFrom: inputs)
/// ```
package struct ResultCache: Sendable {
  var workspace: Workspace
  var variant: Variant
  /// Whatever else a result depends on, in words: the grading options.
  var options: String
  /// The chapters whose learner's checks are not yet graded against the
  /// component's other versions (see ``Grader/versionsPending``): their
  /// results hold only while that stays so.
  var versionsPending: Set<Int>

  /// The cache of the results `grader` gives.
  package init(_ grader: Grader) {
    workspace = grader.workspace
    variant = grader.variant
    let races =
      switch grader.racePass {
      case .whenChecksPass: "when the checks pass"
      case .always: "always"
      case .deferred: "later"
      }
    options =
      "time limit \(grader.timeLimit); race pass \(races); sandbox \(grader.sandbox != nil); "
      + "runner tests \(grader.runnerTests)"
    versionsPending = grader.versionsPending
  }

  /// One kept result and what it was graded from.
  struct Entry: Codable, Sendable {
    var key: String
    var report: ChapterReport
  }

  /// Where results are kept: with the workshop's own state, outside the
  /// build folder. A sandboxed build can write only there, and compiling
  /// learner code runs it: a result it could write is a pass nobody saw.
  var file: URL {
    workspace.stateDirectory.appendingPathComponent("results-\(variant.rawValue).json")
  }

  /// The kept results of `chapters` that still hold for `inputs`, and the
  /// chapters to grade.
  package func lookUp(_ chapters: [Curriculum.Chapter], in inputs: Snapshot) -> (
    reused: [ChapterReport], stale: [Curriculum.Chapter]
  ) {
    let kept = inputs.entries
    var reused: [ChapterReport] = []
    var stale: [Curriculum.Chapter] = []
    for chapter in chapters {
      if let entry = kept[chapter.folder], let key = inputs.keys[chapter.folder], entry.key == key,
        entry.report.chapter == chapter
      {
        reused.append(entry.report)
      } else {
        stale.append(chapter)
      }
    }
    return (reused, stale)
  }

  /// Keeps `reports`, those that are facts of the code (see the type's
  /// description), keyed by what they were graded from.
  ///
  /// - Parameter inputs: the course and the chapters' files as read before
  ///   grading started (``snapshot()``). A chapter whose inputs changed
  ///   while it was graded (a save meanwhile) is not kept: which version the
  ///   build read is unknown. The file is written from the results read then,
  ///   never read again: without a sandbox, code under test runs with the
  ///   learner's permissions while it is graded, and whatever it wrote there
  ///   meanwhile is dropped with everything else in the file.
  package func store(_ reports: [ChapterReport], gradedFrom inputs: Snapshot) {
    let now = snapshot()
    var kept = now.file == inputs.file ? inputs.entries : [:]
    for report in reports {
      if Self.isFact(report), let key = inputs.keys[report.chapter.folder],
        now.keys[report.chapter.folder] == key
      {
        kept[report.chapter.folder] = Entry(key: key, report: report)
      } else {
        kept[report.chapter.folder] = nil
      }
    }
    save(kept)
  }

  /// What each chapter's result depends on, and the kept results, read now.
  package struct Snapshot: Sendable {
    var keys: [String: String]
    /// The kept results as read, and the hash of their file.
    var entries: [String: Entry]
    var file: String
  }

  /// Reads what every chapter's result depends on, and the kept results,
  /// before grading.
  package func snapshot() -> Snapshot {
    let common = commonKey()
    let data = (try? Data(contentsOf: file)) ?? Data()
    return Snapshot(
      keys: Dictionary(
        uniqueKeysWithValues: workspace.curriculum.chapters.map { ($0.folder, key(of: $0, common: common)) }),
      entries: (try? JSONDecoder().decode([String: Entry].self, from: data)) ?? [:],
      file: ContentHash.of(data))
  }

  /// Whether a report is a fact of the code, the same every run.
  static func isFact(_ report: ChapterReport) -> Bool {
    guard report.crash == nil, report.timeLimit == nil, !report.notHandedIn else { return false }
    if case .notRun? = report.raceCheck { return false }
    return !report.checks.contains { $0.status == .interrupted }
  }

  // MARK: - Keys

  /// What every chapter's result depends on alike: the course, the
  /// toolchain, the runner and the options.
  private func commonKey() -> String {
    let course = Fingerprint.ofCourse(workspace).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    var parts = ["course"] + course
    parts.append("variant \(variant.rawValue)")
    parts.append("options \(options)")
    // The compiler that builds, as `swift build` finds it, and the
    // environment that chooses it (Xcode's developer folder, a toolchain).
    let environment = ProcessInfo.processInfo.environment
    for name in ["DEVELOPER_DIR", "TOOLCHAINS", "SDKROOT", "WORKSHOP_HANG_BOUND", "WORKSHOP_NO_SANDBOX"] {
      parts.append("\(name)=\(environment[name] ?? "")")
    }
    if let compiler = Subprocess.executable(named: "swiftc") {
      let real = URL(fileURLWithPath: ChapterRebuild.realPath(compiler))
      parts.append("swiftc \(real.path) \(Fingerprint.identity(of: real))")
    }
    // The runner that grades: a new one may grade differently.
    if let runner = Bundle.main.executableURL {
      parts.append("runner \(Fingerprint.identity(of: runner))")
    }
    return ContentHash.of(Data(parts.joined(separator: "\n").utf8))
  }

  private func key(of chapter: Curriculum.Chapter, common: String) -> String {
    let folder = workspace.codeFolder(chapter, variant)
    var parts = [common, folder]
    if versionsPending.contains(chapter.number) { parts.append("versions pending") }
    let root = workspace.url(folder)
    for name in Files.under(root) {
      parts.append("\(name) \(ContentHash.of(root.appendingPathComponent(name)))")
    }
    return ContentHash.of(Data(parts.joined(separator: "\n").utf8))
  }

  // MARK: - The file

  private func save(_ entries: [String: Entry]) {
    guard let data = try? JSONEncoder().encode(entries) else { return }
    try? FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try? data.write(to: file, options: .atomic)
  }
}
