import Foundation
import WorkshopCore

/// `verify`'s checks that the course runs on Linux and macOS alike.
extension Verifier {
  /// The folders whose Swift files the portability check reads.
  static let portableFolders = ["Sources", "Chapters", "Solutions", "Tests"]

  /// Starts reading the course's Swift files for platform-only and too new
  /// APIs (``Portability``), on a thread of its own: it reads every file of
  /// the course, about 10 s of a core in a debug build, which `verify`
  /// spends beside the solutions' build.
  func startPlatformScan() -> Background<[Portability.Finding]> {
    let root = workspace.root
    return Background { Portability.findings(inPackage: root, folders: Self.portableFolders) }
  }

  /// Reports the platform checks: `scan`'s findings, and the CI workflows
  /// read by actionlint (skipped, with the reason, when it is missing).
  func checkPlatforms(_ tally: Tally, scan: Background<[Portability.Finding]>) {
    let root = workspace.root
    let findings = scan.value()
    let declared = Portability.declaredMacOS(
      inManifest: (try? String(
        contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? "")
    let guarded = findings.filter { rule in
      Portability.rules.contains { $0.name == rule.rule && $0.onlyOn != nil }
    }
    let uncovered = findings.filter { !guarded.contains($0) }
    tally.item(
      guarded.isEmpty, "Linux-only and Darwin-only APIs are used only in branches guarded for their platform",
      guarded.prefix(10).map(\.description))
    tally.item(
      uncovered.isEmpty,
      "every macOS API used is available on the declared platform (macOS \(declared.map(String.init) ?? "not declared"))",
      uncovered.prefix(10).map(\.description))

    let workflows = root.appendingPathComponent(".github/workflows")
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: workflows.path)) ?? [])
      .filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }.sorted()
      .map { workflows.appendingPathComponent($0).path }
    guard !files.isEmpty else {
      tally.item(false, "the CI workflows pass actionlint", ["no workflow in .github/workflows"])
      return
    }
    guard let outcome = try? Subprocess.run("actionlint", ["-no-color"] + files, timeout: 120) else {
      tally.skip(
        "the CI workflows pass actionlint",
        because: "actionlint is not installed (scripts/install-tools.sh installs it)")
      return
    }
    tally.item(
      outcome.succeeded, "the CI workflows pass actionlint",
      (outcome.standardOutput + outcome.standardError).split(separator: "\n").prefix(10).map {
        workspace.relativize(String($0))
      })
  }
}
