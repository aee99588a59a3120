// Chapter 03: Cooperative cancellation (exercise 1 of 2, reference solution)
//
// Goal: `checksum(of:)` computes an Adler-32 checksum over a file, chunk by
// chunk, and stops within one chunk when its task is cancelled, throwing
// `CancellationError` instead of returning a value nobody wants.
//
// The fix: `try Task.checkCancellation()` before every chunk. A CPU-bound loop
// has no suspension point that would notice cancellation for it; it has to
// ask. Once per chunk bounds the wasted work to one chunk.
//
// Where it runs: this package builds with SwiftPM's defaults, so a
// nonisolated async function like this one leaves its caller's actor and runs
// on the shared pool (SE-0338). In a new Xcode 26 app target it would not:
// the default actor isolation is `MainActor` (SE-0466), which makes it
// `@MainActor`, and `NonisolatedNonsendingByDefault` (SE-0461) runs even a
// `nonisolated` one on its caller's actor. There, write it
// `nonisolated @concurrent` to keep the loop off the main actor; the
// cancellation check above stays as it is.

/// Where the job reads its data, one chunk at a time (a file, in the app).
protocol ChunkSource: Sendable {
  /// How many chunks there are.
  var chunkCount: Int { get }
  /// Reads chunk `index`: slow, so a cancelled job should not read more than it must.
  func chunk(at index: Int) -> [UInt8]
}

/// Computes the Adler-32 checksum of every chunk of `source`, in order.
func checksum(of source: any ChunkSource) async throws -> UInt32 {
  var a: UInt32 = 1
  var b: UInt32 = 0
  for index in 0..<source.chunkCount {
    try Task.checkCancellation()
    for byte in source.chunk(at: index) {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
  }
  return (b << 16) | a
}
