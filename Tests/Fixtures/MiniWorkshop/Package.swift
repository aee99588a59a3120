// swift-tools-version: 6.2
//
// A tiny workshop for the runner's end-to-end tests: one chapter per way a
// learner's code can end (passing, failing, crashing, hanging, not compiling).
// Like the real Package.swift, it honours WORKSHOP_SKIP.

import Foundation
import PackageDescription

let chapters = ["01-Passing", "02-Failing", "03-Crashing", "04-Hanging", "05-Broken"]
let skipped = Set(
  (Context.environment["WORKSHOP_SKIP"] ?? "").split(separator: ",").compactMap { Int($0) })

var targets: [Target] = []
for folder in chapters where !skipped.contains(Int(folder.prefix(2))!) {
  let name = String(folder.dropFirst(3))
  targets.append(.target(name: name, path: "Chapters/\(folder)"))
  targets.append(
    .testTarget(name: name + "Tests", dependencies: [.target(name: name)], path: "Tests/\(folder)Tests"))
}

let package = Package(
  name: "MiniWorkshop", platforms: [.macOS(.v15)], targets: targets, swiftLanguageModes: [.v6])
