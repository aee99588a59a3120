// Chapter 14: Where your code runs (exercise 1 of 1, reference solution)
//
// Goal: opening a photo decodes its thumbnail without freezing the screen.
// The main actor stays free while the rows decode, and the decoding still
// belongs to the screen's task: cancelling that task stops it within one
// row, and it runs with the task's trace id and priority.
//
// This folder is compiled as a new Xcode 26 app target is (see
// Package.swift): code without an annotation is `@MainActor` (SE-0466), and
// a `nonisolated async` function runs on its caller's actor (SE-0461).
//
// Run `swift run workshop check 14` to see which behaviours still fail.

/// The trace id of the user action being handled, for logs and the backend.
/// (`nonisolated`: a task-local belongs to the task, not to an actor.)
nonisolated enum Trace {
  @TaskLocal static var id: String?
}

/// A photo in the library: its name and how many rows of pixels it has.
/// (`nonisolated`: plain data, used on any actor.)
nonisolated struct Photo: Equatable, Sendable, CustomStringConvertible {
  var name: String
  var rowCount: Int
  var description: String { name }
}

/// A decoded thumbnail: one line of pixels per row of the photo.
nonisolated struct Thumbnail: Equatable, Sendable {
  var rows: [[UInt8]]
}

/// Decodes a photo one row of pixels at a time: CPU-heavy, synchronous, and
/// safe to call from any thread.
nonisolated protocol RowDecoder: Sendable {
  func decodeRow(_ row: Int, of photo: Photo) -> [UInt8]
}

/// The photo screen's model. Like all code in this target that says nothing
/// else, it is on the main actor.
final class PhotoScreen {
  /// The thumbnail on screen; nil while decoding, or when the user left.
  private(set) var thumbnail: Thumbnail?
  /// Whether the screen shows its spinner.
  private(set) var isDecoding = false
  private let decoder: any RowDecoder

  init(decoder: any RowDecoder) {
    self.decoder = decoder
  }

  /// Shows `photo`'s thumbnail once it is decoded. The view calls it from
  /// `.task`; leaving the screen cancels that task.
  func open(_ photo: Photo) async {
    thumbnail = nil
    isDecoding = true
    defer { isDecoding = false }
    do {
      thumbnail = try await decodeThumbnail(of: photo, with: decoder)
    } catch {
      // Cancelled: the user left, and there is nothing to show.
    }
  }
}

/// Decodes every row of `photo`, checking for cancellation before each one.
///
/// The fix: `@concurrent`. Under SwiftPM's defaults a `nonisolated async`
/// function left its caller's actor (SE-0338); with
/// `NonisolatedNonsendingByDefault` on, it is `nonisolated(nonsending)` and
/// runs on its caller's actor, here the main actor (SE-0461). `@concurrent`
/// says "always leave the caller's actor and run on the shared pool", so
/// the main actor is free between its jobs while the rows decode.
///
/// It is still an ordinary call in the screen's task, not a new task: a
/// cancel of the screen's task reaches `Task.checkCancellation()` here, the
/// task-local trace id is read here unchanged, and the task's priority is the
/// one this runs at. `Task.detached { ... }.value` would leave the main actor
/// too, but in a task of its own, which the screen's cancel never reaches and
/// which starts with no task-locals and a priority of its own.
///
/// `Photo`, `Thumbnail` and `RowDecoder` are `nonisolated`, so this function
/// may use them off the main actor. Had `Photo` stayed main-actor-isolated,
/// its inferred `Equatable` conformance would be isolated too (SE-0470), and
/// comparing two photos here would not compile.
@concurrent
nonisolated func decodeThumbnail(of photo: Photo, with decoder: any RowDecoder) async throws -> Thumbnail {
  var rows: [[UInt8]] = []
  for row in 0..<photo.rowCount {
    try Task.checkCancellation()
    rows.append(decoder.decodeRow(row, of: photo))
  }
  return Thumbnail(rows: rows)
}
