// swift-tools-version: 6.2
//
// The Swift Concurrency Workshop.
//
// The chapters are listed below as `curriculum.json`, the course's single
// source of truth, lists them: `swift run workshop-instructor dev package`
// writes the list, and `swift run workshop verify` fails while the two
// disagree. Nothing rewrites this file while you work. Each chapter `NN-Name`
// becomes
//   - a library target `Name` built from `Chapters/NN-Name` (or from
//     `Solutions/NN-Name` when `WORKSHOP_SOLUTIONS=1`), and
//   - a test target `NameTests` built from `Tests/NN-NameTests`.
//
// `WORKSHOP_SKIP=04,06` leaves chapters out of the build; the grader uses it to
// keep grading the other chapters when one of them does not compile. A
// chapter whose folder is missing is left out too.
// `WORKSHOP_GRADING=1` leaves the runner and its tests out: grading a learner's
// chapters needs only the chapters, their checks and the test kit.
// `WORKSHOP_TEST_ENTRY_POINT=1` (the grader's builds on Linux) adds an empty
// test target, `Tests/EntryPoint/Anchor`, whose only use is that SwiftPM then
// finds the test entry point above it, `Tests/EntryPoint/XCTMain.swift`, and
// need not discover tests in an index: see that file.
// `WORKSHOP_RUNNER_TESTS=1` adds the runner's own end-to-end tests, which
// build and grade whole fixture workshops for minutes: `workshop verify` runs
// them, while `swift test` and Xcode's Product ▸ Test (⌘U) run the chapters
// and the test kit's tests only.

import Foundation
import PackageDescription

/// One chapter, as far as the build needs to know it.
struct Chapter {
  var number: Int
  var name: String
  /// Set when the learner writes the chapter's checks: the module they check.
  var component: String?
  /// Set when the chapter is compiled as a new Xcode 26 app target is, rather
  /// than with SwiftPM's defaults: see `xcodeAppSettings`.
  var xcodeAppDefaults = false
  /// The chapter folder's documents, left out of its target. Listed here,
  /// not read from the folder: SwiftPM reuses a manifest's evaluation while
  /// its text is the same, so a document added later, unlisted, would break
  /// the build as "an unexpected input file" until the text changed.
  var documents = ["README.md"]
  var folder: String { String(format: "%02d-%@", number, name) }
}

// BEGIN chapters, from curriculum.json by `workshop-instructor dev package`
let courseChapters: [Chapter] = [
  Chapter(number: 1, name: "TaskTree", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 2, name: "TaskGroups", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 3, name: "CooperativeCancellation", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 4, name: "DebouncedSearch", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 5, name: "TaskOwnership", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 6, name: "Continuations", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 7, name: "CancellableBridges", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 8, name: "ActorReentrancy", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 9, name: "SingleFlight", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 10, name: "IdempotentSubmission", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 11, name: "AsyncStreams", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 12, name: "DataRaces", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 13, name: "TestingConcurrency", component: "SignupForm", documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 14, name: "WhereCodeRuns", xcodeAppDefaults: true, documents: ["README.md", "README.zh-Hans.md"]),
  Chapter(number: 15, name: "SessionLifetime", documents: ["README.md", "README.zh-Hans.md"]),
]
// END chapters

let environment = Context.environment
let useSolutions = environment["WORKSHOP_SOLUTIONS"].map { !$0.isEmpty && $0 != "0" } ?? false
let skipped = Set(
  (environment["WORKSHOP_SKIP"] ?? "").split(separator: ",").compactMap {
    Int($0.trimmingCharacters(in: .whitespaces))
  })
let gradingOnly = environment["WORKSHOP_GRADING"] == "1"
let runnerTests = environment["WORKSHOP_RUNNER_TESTS"] == "1"
let testEntryPoint = environment["WORKSHOP_TEST_ENTRY_POINT"] == "1"
// A chapter whose folder is gone, or holds no Swift file any more (deleted by
// mistake), is left out, so that the others still build, SwiftPM warns about
// no empty target, and the runner can say how to restore it
// (`swift run workshop reset NN`).
let chapters = courseChapters.filter { chapter in
  let root = (useSolutions ? "Solutions/" : "Chapters/") + chapter.folder
  let names =
    (try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/" + root)) ?? []
  return !skipped.contains(chapter.number) && names.contains { $0.hasSuffix(".swift") }
}

/// A new app target in Xcode 26 builds with default main-actor isolation
/// (SE-0466) and Approachable Concurrency on, whose upcoming features not
/// already part of Swift 6 mode are these two (SE-0461, SE-0470). SwiftPM's
/// defaults are neither; only chapters that teach the difference use them.
let xcodeAppSettings: [SwiftSetting] = [
  .defaultIsolation(MainActor.self),
  .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
  .enableUpcomingFeature("InferIsolatedConformances"),
]

var targets: [Target] = [
  // How a failed check's explanation is laid out: the kit writes it, the runner reads it.
  .target(name: "CheckTranscript", path: "Sources/CheckTranscript"),
  // Lets ThreadSanitizer see Synchronization's `Mutex` on Linux (race checks).
  .target(name: "SanitizerSupport", path: "Sources/SanitizerSupport"),
  .target(
    name: "ConcurrencyTestKit", dependencies: ["CheckTranscript", "SanitizerSupport"],
    path: "Sources/ConcurrencyTestKit"),
]
var products: [Product] = [
  .library(name: "ConcurrencyTestKit", targets: ["ConcurrencyTestKit"])
]
if !gradingOnly {
  targets += [
    // The grading library; the learner's subcommands and runner on top of
    // it; the instructor's and the maintainer's commands (`verify`, `grade`,
    // `dev`) in a module and a runner of their own, to which the learner's
    // runner hands them: the learner's runner compiles none of their code,
    // and the compiler keeps every dependency one way.
    .target(name: "WorkshopCore", dependencies: ["CheckTranscript"], path: "Sources/WorkshopCore"),
    .target(name: "WorkshopLearner", dependencies: ["WorkshopCore"], path: "Sources/WorkshopLearner"),
    .executableTarget(
      name: "workshop", dependencies: ["WorkshopCore", "WorkshopLearner"], path: "Sources/workshop"),
    .target(name: "WorkshopInstructor", dependencies: ["WorkshopCore"], path: "Sources/WorkshopInstructor"),
    .target(name: "WorkshopMaintainer", dependencies: ["WorkshopCore"], path: "Sources/WorkshopMaintainer"),
    .executableTarget(
      name: "workshop-instructor",
      dependencies: ["WorkshopCore", "WorkshopLearner", "WorkshopInstructor", "WorkshopMaintainer"],
      path: "Sources/workshop-instructor"),
    .testTarget(
      name: "ConcurrencyTestKitTests", dependencies: ["ConcurrencyTestKit"],
      path: "Tests/ConcurrencyTestKitTests"),
  ]
  if runnerTests {
    targets.append(
      .testTarget(
        name: "WorkshopCoreTests",
        dependencies: [
          "WorkshopCore", "WorkshopLearner", "WorkshopInstructor", "WorkshopMaintainer", "ConcurrencyTestKit",
        ],
        path: "Tests/WorkshopCoreTests"))
  }
  products.insert(
    contentsOf: [
      .executable(name: "workshop", targets: ["workshop"]),
      .executable(name: "workshop-instructor", targets: ["workshop-instructor"]),
    ], at: 0)
}

for chapter in chapters {
  // A chapter's target is its folder, named as a source of the parent folder
  // rather than as its path: SwiftPM reuses this manifest's last evaluation
  // while its text is unchanged, and a deleted folder given as a path would
  // stop every command before the runner starts; given as a source, it is a
  // warning, and the runner says how to restore it.
  let root = useSolutions ? "Solutions" : "Chapters"
  // The other chapters' folders are not this target's files; learners'
  // chapters carry their documents (the README, in English and in Chinese),
  // solutions are source files only.
  let siblings =
    (try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/" + root)) ?? []
  let exclude =
    siblings.filter { $0 != chapter.folder }.sorted()
    + (useSolutions ? [] : chapter.documents.map { "\(chapter.folder)/\($0)" })
  if let component = chapter.component {
    // The learner writes the checks: their folder is the test target, and the
    // component they check is the course's, in Sources/.
    targets.append(.target(name: component, path: "Sources/\(component)"))
    targets.append(
      .testTarget(
        name: chapter.name + "Tests", dependencies: [.target(name: component), "ConcurrencyTestKit"],
        path: root, exclude: exclude, sources: [chapter.folder]))
    continue
  }
  targets.append(
    .target(
      name: chapter.name, path: root, exclude: exclude, sources: [chapter.folder],
      swiftSettings: chapter.xcodeAppDefaults ? xcodeAppSettings : nil))
  targets.append(
    .testTarget(
      name: chapter.name + "Tests",
      dependencies: [.target(name: chapter.name), "ConcurrencyTestKit"],
      path: "Tests/\(chapter.folder)Tests"))
}

// `workshop` grades a learner's checks against broken versions of the
// component (WORKSHOP_COMPONENT_VARIANTS=SignupForm, in a copy of the course):
// `Variants/checks/` holds the learner's checks, built once against the
// component itself; each `Variants/<id>/` is one version, compiled under the
// component's own module name, so that its objects can stand in for the
// component's when the runner links the checks again, once per version.
if let component = environment["WORKSHOP_COMPONENT_VARIANTS"],
  let checks = environment["WORKSHOP_CHECKS_CHAPTER"],
  let ids = try? FileManager.default.contentsOfDirectory(
    atPath: Context.packageDirectory + "/Variants")
{
  targets.append(.target(name: component, path: "Sources/\(component)"))
  targets.append(
    .testTarget(
      name: "\(checks)Tests", dependencies: [.target(name: component), "ConcurrencyTestKit"],
      path: "Variants/checks"))
  for id in ids.sorted() where id != "checks" && !id.hasPrefix(".") {
    targets.append(
      .target(
        name: "\(component)_\(id)", path: "Variants/\(id)",
        swiftSettings: [.unsafeFlags(["-module-name", component])]))
  }
}

if testEntryPoint {
  targets.append(.testTarget(name: "TestEntryPointAnchor", path: "Tests/EntryPoint/Anchor"))
}

let package = Package(
  name: "Workshop",
  // Mutex and Atomic (Synchronization) and task executors (SE-0417) are
  // available from macOS 15. The course runs on the Mac, not on a device.
  platforms: [.macOS(.v15)],
  products: products,
  dependencies: [],
  targets: targets,
  swiftLanguageModes: [.v6]
)
