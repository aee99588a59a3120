// swift-tools-version: 6.2
//
// A two-chapter workshop for the tests of one chapter in which the learner
// writes the checks: 01-Adder as in ClassWorkshop, and 02-Checks, whose
// checks of the component `Counter` (Sources/Counter) are graded against its
// versions (Tests/02-ChecksTests/Variants). Like the real Package.swift, it
// honours WORKSHOP_SOLUTIONS, WORKSHOP_SKIP, WORKSHOP_COMPONENT_VARIANTS and
// WORKSHOP_CHECKS_CHAPTER.

import Foundation
import PackageDescription

let environment = Context.environment
let root = environment["WORKSHOP_SOLUTIONS"] == "1" ? "Solutions" : "Chapters"
let skipped = Set((environment["WORKSHOP_SKIP"] ?? "").split(separator: ",").compactMap { Int($0) })
let folders =
  (try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/" + root)) ?? []
let present = folders.filter { !skipped.contains(Int($0.prefix(2)) ?? 0) }
func exclude(_ folder: String) -> [String] {
  folders.filter { $0 != folder } + (root == "Chapters" ? ["\(folder)/README.md"] : [])
}
var targets: [Target] = []
if present.contains("01-Adder") {
  targets.append(.target(name: "Adder", path: root, exclude: exclude("01-Adder"), sources: ["01-Adder"]))
  targets.append(.testTarget(name: "AdderTests", dependencies: ["Adder"], path: "Tests/01-AdderTests"))
}
if present.contains("02-Checks") {
  targets.append(.target(name: "Counter", path: "Sources/Counter"))
  targets.append(
    .testTarget(
      name: "ChecksTests", dependencies: ["Counter"], path: root, exclude: exclude("02-Checks"),
      sources: ["02-Checks"]))
}

// As in the real Package.swift: the learner's checks once against the
// component, and each version compiled under the component's module name.
if let component = environment["WORKSHOP_COMPONENT_VARIANTS"],
  let checks = environment["WORKSHOP_CHECKS_CHAPTER"],
  let ids = try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/Variants")
{
  targets.append(.target(name: component, path: "Sources/\(component)"))
  targets.append(
    .testTarget(name: "\(checks)Tests", dependencies: [.target(name: component)], path: "Variants/checks"))
  for id in ids.sorted() where id != "checks" && !id.hasPrefix(".") {
    targets.append(
      .target(
        name: "\(component)_\(id)", path: "Variants/\(id)",
        swiftSettings: [.unsafeFlags(["-module-name", component])]))
  }
}

if environment["WORKSHOP_TEST_ENTRY_POINT"] == "1" {
  targets.append(.testTarget(name: "TestEntryPointAnchor", path: "Tests/EntryPoint/Anchor"))
}

let package = Package(
  name: "ChecksWorkshop", platforms: [.macOS(.v15)], targets: targets, swiftLanguageModes: [.v6])
