import Foundation
import Synchronization

/// Grading a chapter in which the learner writes the checks (`component` in
/// `curriculum.json`): their checks must pass on the course's component every
/// time, quickly and without waiting for real time, and fail on every broken
/// version of it (`Tests/NN-NameTests/Variants/*.mutation`, `kind: wrong`),
/// while passing on every other correct version (`kind: right`).
extension Grader {
  /// Why a version's item is not graded yet in an untouched chapter, where
  /// it shows what the untouched starter gives (``versionAsShipped``).
  static let versionsPendingNote =
    "As shipped: graded again once you start this chapter (the first edit of its files), or now with `swift run workshop check`."
  /// ``versionsPendingNote`` in Chinese.
  static let versionsPendingNoteChinese =
    "原样发布时的结果：你开始这一章（第一次修改它的文件）之后会重新评分，或者现在用 `swift run workshop check` 评分。"

  /// A version's item in an untouched chapter, left for later: with the
  /// result the untouched starter gives, which `curriculum.json` records
  /// (`starterFails`, which `verify` keeps current), so that the table,
  /// `check`, `watch` and `grade` count the same state the same.
  static func versionAsShipped(id: String, name: String, of chapter: Curriculum.Chapter) -> CheckResult {
    CheckResult(
      id: id, name: name, status: chapter.starterFails.contains(name) ? .failed : .passed,
      issues: [CheckIssue.both(versionsPendingNote, versionsPendingNoteChinese)])
  }

  /// How many times the learner's checks run on the correct component.
  static let checkRuns = 10
  /// How many times they run on each other version: a broken one counts as
  /// caught only when it is caught every time.
  static let variantRuns = 3
  /// The most a check may take, in seconds.
  static let slowCheck = 1.0

  /// The folder of a chapter's versions of its component.
  package static func variantsFolder(_ chapter: Curriculum.Chapter) -> String {
    "Tests/\(chapter.testFolder)/Variants"
  }

  /// Folds the grading of the learner's checks into the reports of the
  /// chapters in which they write them; others are returned as they are.
  func checkTheChecks(_ reports: [ChapterReport], build: Build) -> [ChapterReport] {
    reports.map { report in
      report.chapter.writesChecks ? checkTheChecks(report, build: build) : report
    }
  }

  private func checkTheChecks(_ plain: ChapterReport, build: Build) -> ChapterReport {
    var report = plain
    let chapter = plain.chapter
    let variants: [Mutation]
    do {
      variants = try Mutation.load(from: workspace.url(Self.variantsFolder(chapter)))
    } catch {
      report.crash = "the versions of the component cannot be read: \(error)"
      return report
    }
    let waits = realWaits(in: chapter)
    let outside = lines(in: chapter, matching: Self.outsidePatterns)
    var items: [CheckResult] = [
      Self.rule(
        Self.outsideItem, found: outside,
        why: (
          "A check learns everything it needs from the field, the clock and the server.",
          "一项检查需要知道的一切，都从输入框、时钟和服务器得到。"
        )),
      Self.rule(
        Self.waitsItem, found: waits,
        why: ("A check must decide when things happen, not wait and hope.", "一项检查必须决定事情何时发生，而不是等待并碰运气。"),
        advice: (
          "Use the kit's TestClock (advance it after waitForSleepers) and await what you wait for.",
          "用工具包的 TestClock（在 waitForSleepers 之后推进它），并 await 你要等的东西。"
        )),
    ]
    let usable =
      plain.compileErrors.isEmpty && plain.crash == nil && plain.timeLimit == nil && !plain.checks.isEmpty
    if usable && plain.failing.isEmpty {
      report.checks = repeated(plain, build: build)
    }
    let pending = versionsPending.contains(chapter.number)
    let ready = usable && report.failing.isEmpty && !pending
    let outcomes = ready ? grade(variants, of: chapter) : [:]
    // Broken versions first, then the correct ones.
    let listed = variants.filter { $0.kind == .wrong } + variants.filter { $0.kind == .right }
    for variant in listed {
      let (id, name) = (Self.item(for: variant).id, Self.item(for: variant).name)
      guard ready else {
        items.append(
          pending
            ? Self.versionAsShipped(id: id, name: name, of: chapter)
            : CheckResult(
              id: id, name: name, status: .skipped,
              issues: [
                CheckIssue.both(
                  "Graded once every check of yours passes on the real component, every time.",
                  "等你的每项检查在真正的组件上每次都通过之后，才会评这一项。")
              ]))
        continue
      }
      let outcome = outcomes[variant.name] ?? .failure(VariantError("it could not be graded"))
      switch (variant.kind, outcome) {
      case (_, .failure(let reason)):
        items.append(
          CheckResult(id: id, name: name, status: .interrupted, issues: [CheckIssue(reason.description)]))
      case (.wrong, .success(let runs)):
        // Caught means one check fails in every run, not any check in each:
        // under load, a different check timing out in each run is luck.
        let failing = runs.map { Set($0.keys) }
        let everyTime = failing.dropFirst().reduce(failing.first ?? []) { $0.intersection($1) }
        let caught = runs.filter { !$0.isEmpty }.count
        items.append(
          CheckResult(
            id: id, name: name, status: everyTime.isEmpty ? .failed : .passed,
            issues: !everyTime.isEmpty
              ? []
              : [
                caught == 0
                  ? CheckIssue.both(
                    "Every check of yours passes on a field that \(variant.note). Which check would notice?",
                    "这个输入框“\(variant.note)”，而你的每项检查在它上面都通过了。哪项检查会注意到？")
                  : CheckIssue.both(
                    "No check of yours fails on it in all \(runs.count) runs (caught in \(caught)): a check depends on timing.",
                    "在全部 \(runs.count) 次运行中，没有哪一项你的检查每次都在它上面失败（\(caught) 次抓住了它）：有一项检查依赖时机。")
              ]))
      case (_, .success(let runs)):
        let failures = runs.flatMap { $0.values.flatMap { $0 } }
        items.append(
          CheckResult(
            id: id, name: name, status: failures.isEmpty ? .passed : .failed,
            issues: failures.isEmpty
              ? []
              : [
                CheckIssue.both(
                  "This field is correct too (it \(variant.note)), but a check of yours fails on it: it tests how"
                    + " the field is written, not what it does.\n"
                    + failures.prefix(2).joined(separator: "\n"),
                  "这个输入框也是正确的（它“\(variant.note)”），但你的一项检查在它上面失败了：它测的是输入框怎么写，"
                    + "而不是它做了什么。\n" + failures.prefix(2).joined(separator: "\n"))
              ]))
      }
    }
    report.checks += items
    return report
  }

  // MARK: - What such a chapter is graded on

  /// A rule's result: passed when nothing breaking it was found, else failed
  /// with why the rule exists, each line found, and what to do instead.
  /// `why` and `advice` in English and in Chinese.
  static func rule(
    _ item: ExpectedCheck, found: [String], why: (String, String), advice: (String, String)? = nil
  ) -> CheckResult {
    guard !found.isEmpty else { return CheckResult(id: item.id, name: item.name, status: .passed) }
    let lines = found.map { "  " + $0 }.joined(separator: "\n")
    return CheckResult(
      id: item.id, name: item.name, status: .failed,
      issues: [
        CheckIssue.both(
          why.0 + " Found:\n" + lines + (advice.map { "\n" + $0.0 } ?? ""),
          why.1 + "发现：\n" + lines + (advice.map { "\n" + $0.1 } ?? ""))
      ])
  }

  /// How the IDs of the items the course adds to a learner's own checks begin.
  static let courseItemPrefix = "workshop."
  /// The rule that checks learn only from the component.
  static let outsideItem = ExpectedCheck(
    id: courseItemPrefix + "outside", name: "Checks only what the field does")
  /// The rule that checks never wait for real time.
  static let waitsItem = ExpectedCheck(
    id: courseItemPrefix + "waits", name: "Waits for events, never for real time")
  /// The learner's own checks, counted as one item in a class's grades: the
  /// number of checks a learner writes is not a score.
  static let ownChecksItem = ExpectedCheck(
    id: courseItemPrefix + "own-checks", name: "Your checks pass on the field, every run, each within 1 s")

  /// The item a version of the component is graded as.
  static func item(for variant: Mutation) -> ExpectedCheck {
    ExpectedCheck(
      id: courseItemPrefix + "variant.\(variant.name)",
      name: variant.kind == .wrong
        ? "Catches a field that \(variant.note)" : "Accepts a field that \(variant.note)")
  }

  /// Everything a chapter in which the learner writes the checks is graded
  /// on in a class's grades, whatever checks they wrote, in report order.
  package func gradedItems(of chapter: Curriculum.Chapter) throws -> [ExpectedCheck] {
    let variants = try Mutation.load(from: workspace.url(Self.variantsFolder(chapter)))
    let listed = variants.filter { $0.kind == .wrong } + variants.filter { $0.kind == .right }
    return [Self.outsideItem, Self.waitsItem, Self.ownChecksItem] + listed.map(Self.item(for:))
  }

  // MARK: - The learner's checks, again and again

  /// The report's checks after `checkRuns` runs in all: a check that failed
  /// once fails, with the run it failed in; one slower than `slowCheck` fails.
  private func repeated(_ plain: ChapterReport, build: Build) -> [CheckResult] {
    let runner = TestRun(build: build, environment: Self.childEnvironment, sandbox: sandbox)
    let filter = "^" + NSRegularExpression.escapedPattern(for: plain.chapter.testModule + ".")
    let runs = concurrentMap(Array(1..<Self.checkRuns), width: 3) { _ in
      runner.run(filter: filter, timeLimit: timeLimit / 2)
    }
    var checks = plain.checks
    for index in checks.indices {
      let id = checks[index].id
      for (number, run) in zip(2..., runs) {
        let issues = run.summary.issues[id] ?? []
        if !run.isComplete || !run.summary.ended.contains(id) || !issues.isEmpty {
          checks[index].status = .failed
          let why = { (words: Language) in
            issues.first.map { "\n" + $0.words(words) }
              ?? run.cause.map { words("\nThe run ended: ", "\n运行结束了：") + $0 } ?? ""
          }
          checks[index].issues = [
            CheckIssue.both(
              "Passed in run 1, but not in run \(number) of \(Self.checkRuns): a check must pass every time."
                + why(.english),
              "第 1 次运行通过了，但第 \(number) 次（共 \(Self.checkRuns) 次）没有：一项检查必须每次都通过。" + why(.chinese))
          ]
          break
        }
        if let seconds = run.summary.durations[id], seconds > Self.slowCheck {
          checks[index].status = .failed
          checks[index].issues = [
            CheckIssue.both(
              String(
                format: "Took %.1f s in run %d: a check takes no real time (the limit is %.0f s).", seconds,
                number, Self.slowCheck),
              String(
                format: "第 %d 次运行用了 %.1f 秒：一项检查不花真实时间（上限是 %.0f 秒）。", number, seconds,
                Self.slowCheck))
          ]
          break
        }
      }
    }
    return checks
  }

  /// Lines of the learner's files that match `patterns`, as
  /// `Chapters/13-Name/File.swift:12: what`, comments left out.
  func lines(in chapter: Curriculum.Chapter, matching patterns: [(Regex<Substring>, String)]) -> [String] {
    let folder = workspace.codeFolder(chapter, variant)
    let files = Files.under(workspace.url(folder), suffix: ".swift")
    var found: [String] = []
    for file in files {
      let text = (try? String(contentsOf: workspace.url(folder + "/" + file), encoding: .utf8)) ?? ""
      // Read as code (``SwiftTokens``): a comment or a string is not a finding.
      for (index, code) in ReviewScan.code(of: text).enumerated() {
        for (pattern, what) in patterns where code.contains(pattern) {
          found.append("\(folder)/\(file):\(index + 1): \(what)")
        }
      }
    }
    return found
  }

  /// Calls that wait for real time in the learner's files.
  func realWaits(in chapter: Curriculum.Chapter) -> [String] {
    lines(in: chapter, matching: Self.realWaitPatterns)
  }

  /// What waits for real time, or hopes the scheduler got somewhere.
  nonisolated(unsafe) static let realWaitPatterns: [(Regex<Substring>, String)] = [
    (/Task(?:<[^>]*>)?\.sleep/, "Task.sleep waits for real time"),
    (/Thread\.sleep/, "Thread.sleep waits for real time"),
    (/(?:^|[^.\w])(?:u|nano)?sleep\(/, "sleep waits for real time"),
    (/ContinuousClock/, "a ContinuousClock runs in real time"),
    (/SuspendingClock/, "a SuspendingClock runs in real time"),
    (/asyncAfter/, "asyncAfter waits for real time"),
    (/DispatchSemaphore|\.wait\(timeout:/, "a semaphore blocks a thread until someone signals it"),
    (/Task(?:<[^>]*>)?\.yield/, "Task.yield hopes another task got somewhere; await what you wait for"),
    // The same hope in other spellings: a task, a hop or a continuation that
    // does nothing lets other tasks run, as `Task.yield` does. The right
    // version `right-lets-other-work-run-first` catches every spelling this
    // list misses: its steps come later than any fixed number of hops.
    (
      /Task(?:\.detached)?\s*(?:<[^>]*>)?\s*(?:\([^)]*\))?\s*\{\s*(?:\(\s*\)|_\s*=\s*\w+)?\s*\}\s*\.value/,
      "awaiting a task that does nothing hopes another task got somewhere; await what you wait for"
    ),
    (
      /MainActor\.run\s*\{\s*(?:\(\s*\))?\s*\}/,
      "a hop that does nothing hopes another task got somewhere; await what you wait for"
    ),
    (
      /with(?:Checked|Unsafe)(?:Throwing)?Continuation\s*\{\s*\$0\.resume\(\)\s*\}/,
      "a continuation resumed at once hopes another task got somewhere; await what you wait for"
    ),
  ]

  /// What a check needs no access to: the files, the process, its own source.
  nonisolated(unsafe) static let outsidePatterns: [(Regex<Substring>, String)] = [
    (/#(?:fileID|filePath|file)\b/, "reads where its own source is"),
    (/FileManager|contentsOf:|(?:^|[^.\w])f?open\(/, "reads files"),
    (/ProcessInfo|CommandLine|getenv/, "reads the process's arguments or environment"),
    (/dlopen|dlsym|@_silgen_name|@_cdecl/, "reaches into the binary"),
  ]

  // MARK: - The other versions of the component

  /// Each version's runs: per run, the learner's checks that failed, with
  /// their issues (empty when every check passed), or why it could not be graded.
  private func grade(_ variants: [Mutation], of chapter: Curriculum.Chapter) -> [String: Result<
    [[String: [String]]], VariantError
  >] {
    let graded = variants.filter { $0.kind != .uncaught }
    guard !graded.isEmpty, let component = chapter.component else { return [:] }
    progress?("Checking your checks against \(graded.count) versions of \(component)")
    let copy: VariantWorkspace
    do {
      copy = try VariantWorkspace.prepare(for: chapter, variants: graded, from: workspace, variant: variant)
    } catch {
      return Dictionary(uniqueKeysWithValues: graded.map { ($0.name, .failure(VariantError("\(error)"))) })
    }
    let build: Build
    do {
      var builder = Builder(
        workspace: copy.workspace, variant: .chapters,
        leftOut: Set(workspace.curriculum.chapters.map(\.number)),
        environment: copy.environment(Self.childEnvironment), progress: progress)
      builder.words = words
      builder.sandbox = sandbox
      if rebuildsWithoutSwiftPM {
        // Only the learner's checks change from one grading to the next.
        builder.quickModules = [ChapterRebuild.Module(name: copy.testModule, folder: "Variants/checks")]
      }
      build = try builder.build()
    } catch {
      let reason = "the versions did not build: \(firstLine(of: "\(error)"))"
      return Dictionary(uniqueKeysWithValues: graded.map { ($0.name, .failure(VariantError(reason))) })
    }
    progress?("Linking your checks with each version of \(component)")
    let products = copy.link(build, sandbox: sandbox, environment: Self.childEnvironment)
    let jobs = graded.flatMap { variant in (0..<Self.variantRuns).map { (variant, $0) } }
    let done = Mutex(0)
    let filter = "^" + NSRegularExpression.escapedPattern(for: copy.testModule + ".")
    let results = concurrentMap(jobs, width: 4) {
      (variant, _) -> (String, Result<[String: [String]], VariantError>) in
      let product: URL
      switch products[variant.name] {
      case .success(let linked)?: product = linked
      case .failure(let error)?: return (variant.name, .failure(error))
      case nil: return (variant.name, .failure(VariantError("it was not linked")))
      }
      var linked = build
      linked.product = product
      let runner = TestRun(build: linked, environment: Self.childEnvironment, sandbox: sandbox)
      let outcome = runner.run(filter: filter, timeLimit: timeLimit / 2)
      let count = done.withLock { count in
        count += 1
        return count
      }
      progress?("Checking your checks against other versions: \(count)/\(jobs.count)")
      if outcome.timedOut {
        return (variant.name, .success(["(time limit)": ["a check of yours never finished"]]))
      }
      // A product that never started a check (it could not start) caught
      // nothing: that is no result, whatever ended it.
      guard !outcome.summary.started.isEmpty else {
        return (variant.name, .failure(VariantError("no check ran against it")))
      }
      if let cause = outcome.cause, !outcome.isComplete {
        return (variant.name, .success(["(crash)": ["a check of yours crashed: \(cause)"]]))
      }
      var failures: [String: [String]] = [:]
      for id in outcome.summary.started {
        let issues = (outcome.summary.issues[id] ?? []).map(\.description)
        let all = outcome.summary.ended.contains(id) ? issues : ["did not finish"] + issues
        if !all.isEmpty { failures[id] = all }
      }
      return (variant.name, .success(failures))
    }
    var byName: [String: Result<[[String: [String]]], VariantError>] = [:]
    for (name, result) in results {
      switch (byName[name], result) {
      case (.failure?, _): continue
      case (_, .failure(let error)): byName[name] = .failure(error)
      case (.success(let runs)?, .success(let failures)): byName[name] = .success(runs + [failures])
      case (nil, .success(let failures)): byName[name] = .success([failures])
      }
    }
    return byName
  }
}

/// Why a version of the component could not be graded.
struct VariantError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
