// swift-tools-version: 6.2
//
// A two-chapter workshop for the tests of `workshop grade`: each chapter's
// starter fails one of its two checks, and its solution passes both.
// Like the real Package.swift, it honours WORKSHOP_SKIP and WORKSHOP_SOLUTIONS.

import Foundation
import PackageDescription

let chapters = ["01-Adder", "02-Greeter"]
let skipped = Set(
  (Context.environment["WORKSHOP_SKIP"] ?? "").split(separator: ",").compactMap { Int($0) })
let root = Context.environment["WORKSHOP_SOLUTIONS"] == "1" ? "Solutions" : "Chapters"

// As in the real Package.swift: a missing chapter folder is left out, and
// each chapter is a source of its parent folder, so that a cached manifest
// naming a deleted folder gives a warning, not an error.
let present =
  (try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/" + root)) ?? []
var targets: [Target] = []
// A folder that holds no Swift file any more is left out too.
func hasSwift(_ folder: String) -> Bool {
  let names =
    (try? FileManager.default.contentsOfDirectory(
      atPath: Context.packageDirectory + "/" + root + "/" + folder))
    ?? []
  return names.contains { $0.hasSuffix(".swift") }
}
for folder in chapters
where !skipped.contains(Int(folder.prefix(2))!) && present.contains(folder) && hasSwift(folder) {
  let name = String(folder.dropFirst(3))
  targets.append(
    .target(
      name: name, path: root,
      exclude: present.filter { $0 != folder } + (root == "Chapters" ? ["\(folder)/README.md"] : []),
      sources: [folder]))
  targets.append(
    .testTarget(name: name + "Tests", dependencies: [.target(name: name)], path: "Tests/\(folder)Tests"))
}

// As in the real Package.swift: the grader's test entry point, which the
// runner's tests copy in from the course.
if Context.environment["WORKSHOP_TEST_ENTRY_POINT"] == "1" {
  targets.append(.testTarget(name: "TestEntryPointAnchor", path: "Tests/EntryPoint/Anchor"))
}

let package = Package(
  name: "ClassWorkshop", platforms: [.macOS(.v15)], targets: targets, swiftLanguageModes: [.v6])
