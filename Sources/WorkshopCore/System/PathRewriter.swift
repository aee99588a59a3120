import Foundation

/// The one way the workshop makes the paths it prints relative: to the
/// workshop's folder (a tool's absolute path, in either spelling of that
/// folder), and, when the command ran in a folder inside the workshop, to
/// that folder, so that a path a learner sees is one they can open from
/// where they stand.
///
///     let paths = PathRewriter(
///       root: URL(fileURLWithPath: "/w"), directory: URL(fileURLWithPath: "/w/Chapters/04-DebouncedSearch"))
///     paths.rewrite("/w/Chapters/04-DebouncedSearch/SearchModel.swift:12: error: ...")
///     // "SearchModel.swift:12: error: ..."
///     paths.rewrite("Edit Chapters/05-TaskOwnership/Checkout.swift")
///     // "Edit ../05-TaskOwnership/Checkout.swift"
package struct PathRewriter: Sendable {
  /// The workshop's folder as tools may print it, each with a slash:
  /// on macOS the temporary folder `/var/folders/...` is really
  /// `/private/var/folders/...`.
  private let roots: [String]
  /// Where the command ran, as folders under the workshop's; empty at the
  /// workshop's top or outside it.
  private let here: [String]

  /// Rewrites paths relative to `here`, folders under the workshop's,
  /// which tools may spell as any of `spellings` (each with a slash).
  init(spellings: [String], here: [String]) {
    roots = spellings.sorted { $0.count > $1.count }
    self.here = here
  }

  /// Rewrites paths relative to `directory` (by default, the workshop's folder `root`).
  package init(root: URL, directory: URL? = nil) {
    // The longer first: `/private/var/w/` holds `/var/w/`.
    let spellings = [root.path + "/"] + (Files.realPath(root.path).map { [$0 + "/"] } ?? [])
    self.roots = spellings.sorted { $0.count > $1.count }
    here = directory.flatMap { Files.components(of: $0, under: root) } ?? []
  }

  /// `text` with every path in the workshop relative to the directory.
  package func rewrite(_ text: String) -> String {
    let relative = roots.reduce(text) { $0.replacingOccurrences(of: $1, with: "") }
    guard !here.isEmpty else { return relative }
    return relative.replacing(
      /(^|[^\w.\/-])((?:Chapters|Solutions|Tests|Slides|Sources)\/[\w.-]+(?:\/[\w.-]+)*\/?)/
    ) { match in
      let path = match.output.2.split(separator: "/").map(String.init)
      let slash = match.output.2.hasSuffix("/") ? "/" : ""
      return match.output.1 + Files.relative(path, from: here) + slash
    }
  }
}
