import Foundation

/// Remembers which hints of each exercise have been shown, in
/// `.workshop/hints.json`: `{"04-DebouncedSearch": [0, 1]}`, by chapter
/// folder (and `/exercise` for a chapter of several), hint indices from 0.
package struct HintStore: Sendable {
  var file: URL

  package init(directory: URL) {
    file = directory.appendingPathComponent("hints.json")
  }

  /// The hints shown so far, by key. A count saved by an earlier version of
  /// the runner reads as its first hints shown.
  package func load() -> [String: Set<Int>] {
    guard let data = try? Data(contentsOf: file) else { return [:] }
    if let shown = try? JSONDecoder().decode([String: Set<Int>].self, from: data) { return shown }
    if let counts = try? JSONDecoder().decode([String: Int].self, from: data) {
      return counts.mapValues { Set(0..<max(0, $0)) }
    }
    return [:]
  }

  /// Saves what was shown, creating the folder if needed.
  package func save(_ shown: [String: Set<Int>]) throws {
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(shown.mapValues { $0.sorted() }).write(to: file, options: .atomic)
  }
}
