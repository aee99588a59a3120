// Chapter 02: Task groups (exercise 3 of 4, reference solution)
//
// Goal: `downloadFromFastestMirror(_:using:)` asks every mirror at once and
// returns the first successful download; a mirror that fails is skipped; the
// slower mirrors are cancelled as soon as one succeeds; if every mirror fails,
// the error says so; no mirrors at all is a clear error.
//
// The fixes:
//   1. Children return a `Result`, so one mirror's failure does not end the
//      group: it is noted, and the loop waits for the next finisher.
//   2. `group.cancelAll()` after the first success. It only asks the losers
//      to stop: each one ends when its own code notices the cancellation (a
//      well-behaved download throws `CancellationError` at once). Returning
//      from the closure still waits for every loser to end.

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
  guard !mirrors.isEmpty else { throw MirrorError.noMirrors }
  return try await withThrowingTaskGroup(of: (String, Result<String, any Error>).self) { group in
    for mirror in mirrors {
      group.addTask {
        do {
          return (mirror, .success(try await client.download(from: mirror)))
        } catch {
          return (mirror, .failure(error))
        }
      }
    }
    var failed: [String] = []
    for try await (mirror, result) in group {
      switch result {
      case .success(let file):
        group.cancelAll()
        return file
      case .failure:
        failed.append(mirror)
      }
    }
    // Cancelled by our caller, every child "failed": say what really happened.
    try Task.checkCancellation()
    throw MirrorError.allFailed(failed)
  }
}
