// Chapter 02: Task groups (exercise 3 of 4)
//
// Goal: `downloadFromFastestMirror(_:using:)` asks every mirror at once and
// returns the first successful download; a mirror that fails is skipped; the
// slower mirrors are cancelled as soon as one succeeds; if every mirror fails,
// the error says so; no mirrors at all is a clear error.

/// A download client that can fetch the same file from several mirrors.
protocol MirrorClient: Sendable {
  /// The file's contents, as served by `mirror`.
  func download(from mirror: String) async throws -> String
}

/// Errors of `downloadFromFastestMirror`.
enum MirrorError: Error, Equatable {
  /// There was no mirror to ask.
  case noMirrors
  /// Every mirror failed; the mirrors, in the order they failed.
  case allFailed([String])
}

/// Downloads the file from whichever mirror delivers it first.
func downloadFromFastestMirror(_ mirrors: [String], using client: any MirrorClient) async throws -> String {
  try await withThrowingTaskGroup(of: String.self) { group in
    for mirror in mirrors {
      group.addTask { try await client.download(from: mirror) }
    }
    // TODO: `next()` returns the first mirror to *finish*. It may have failed.
    guard let first = try await group.next() else { throw MirrorError.noMirrors }
    // TODO: Leaving this closure waits for every other mirror to finish.
    return first
  }
}
