// swift-tools-version: 6.2
//
// A tiny workshop for the runner's end-to-end tests: one chapter per way a
// learner's code can end (passing, failing, crashing, hanging, not compiling)
// and per thing it can do to the grader (exit early, rewrite its event
// stream, write its check's end into the stream, rewrite its checks or the
// test product, leave processes behind and signal its parent, define @main,
// ship a C file).
// Like the real Package.swift, it honours WORKSHOP_SKIP.

import Foundation
import PackageDescription

let chapters = [
  "01-Passing", "02-Failing", "03-Crashing", "04-Hanging", "05-Broken", "06-ExitsEarly", "07-RewritesStream",
  "08-Tampers", "09-Escapes", "10-EntryPoint", "11-OtherLanguage", "12-ForgesVerdict",
  "13-Undecided", "14-Quiet",
]
let skipped = Set(
  (Context.environment["WORKSHOP_SKIP"] ?? "").split(separator: ",").compactMap { Int($0) })

var targets: [Target] = []
for folder in chapters where !skipped.contains(Int(folder.prefix(2))!) {
  let name = String(folder.dropFirst(3))
  targets.append(.target(name: name, path: "Chapters/\(folder)"))
  targets.append(
    .testTarget(name: name + "Tests", dependencies: [.target(name: name)], path: "Tests/\(folder)Tests"))
}

// As in the real Package.swift: the grader's test entry point, which the
// runner's tests copy in from the course.
if Context.environment["WORKSHOP_TEST_ENTRY_POINT"] == "1" {
  targets.append(.testTarget(name: "TestEntryPointAnchor", path: "Tests/EntryPoint/Anchor"))
}

let package = Package(
  name: "MiniWorkshop", platforms: [.macOS(.v15)], targets: targets, swiftLanguageModes: [.v6])
