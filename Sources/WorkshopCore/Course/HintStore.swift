import Foundation

/// Remembers how many hints each chapter has shown, in `.workshop/hints.json`.
public struct HintStore: Sendable {
  public var file: URL

  public init(directory: URL) {
    file = directory.appendingPathComponent("hints.json")
  }

  /// How many hints of each chapter (by folder name) have been shown.
  public func load() -> [String: Int] {
    guard let data = try? Data(contentsOf: file),
      let counts = try? JSONDecoder().decode([String: Int].self, from: data)
    else { return [:] }
    return counts
  }

  /// Saves the counts, creating the folder if needed.
  public func save(_ counts: [String: Int]) throws {
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(counts).write(to: file, options: .atomic)
  }
}
