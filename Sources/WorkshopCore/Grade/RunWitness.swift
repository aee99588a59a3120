import Foundation

/// What code under test must leave alone while its checks run, taken before
/// a grading run and compared after it: the course's own files (checks, kit,
/// runner, manifests) and the programs that run the checks (the test
/// product, and on macOS the toolchain's testing helper, which every later
/// `swift test` on the machine runs too).
///
/// In the sandbox none of them can change. Without it code under test can
/// write anywhere, and a grade made while any of them changed is no grade.
struct RunWitness {
  private let course: Fingerprint.Inputs
  private let programs: [String: String]

  init(workspace: Workspace, build: Build) {
    course = Fingerprint.ofCourse(workspace)
    programs = build.launcher.identities(running: build.product)
  }

  /// Throws, saying what changed and what to do, when anything did.
  func confirm(workspace: Workspace, build: Build) throws {
    let changed = Fingerprint.changes(since: course, in: workspace)
    let now = build.launcher.identities(running: build.product)
    let replaced = programs.keys.filter { programs[$0] != now[$0] }.sorted().map { path in
      path == build.product.path
        ? "\(workspace.relativize(path)) (the test product: the next run builds it again)"
        : "\(path) (your toolchain's testing helper: reinstall Xcode or the toolchain before any other test runs)"
    }
    guard changed.isEmpty && replaced.isEmpty else {
      let restore = changed.first.map { " Restore them (git checkout -- \($0)) and run again." } ?? ""
      throw GradingError(
        description: """
          the course's own files changed while the checks ran, so no result of this run counts:
          \((changed.prefix(5) + replaced).map { "  " + $0 }.joined(separator: "\n"))
          Code under test wrote them.\(restore)
          """)
    }
  }
}
