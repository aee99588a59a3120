// Chapter 12: Sendable and data races (exercise 2 of 2, reference solution)
//
// Goal: the download screen shows every progress update the SDK reports, in
// order and with the values of that moment, without a data race with the
// SDK's thread; and it shows "finished" before the SDK's main-thread
// callback returns.
//
// The fixes:
//   1. Copy first: each callback copies what the screen needs out of the
//      SDK's `LegacyTransfer` into a `ProgressUpdate`, a Sendable value,
//      before it returns. Only the copy crosses to the main actor; the SDK's
//      object never leaves its thread, and `nonisolated(unsafe)` is gone.
//   2. One ordered hand-over: the copies go into an `AsyncStream` that a
//      single task on the main actor drains, so the screen sees them in the
//      order the SDK reported them, by construction. (One
//      `Task { @MainActor in }` per callback keeps that order too: since
//      SE-0431 such tasks start on the main actor in the order they were
//      created. Not `Task { await viewModel.show(update) }`, which starts
//      elsewhere and hops, in any order.)
//   3. `didFinish` runs on the main thread, as the SDK documents, so
//      `MainActor.assumeIsolated` runs the update right now, synchronously:
//      the screen says "finished" before the callback returns, and the SDK's
//      values are read before it reuses the object. It checks that promise
//      and traps if it is broken; a `Task { @MainActor in }` would run later.
//   4. The adapter stores only Sendable values, so it is checked `Sendable`.

// MARK: - The legacy download SDK (not yours to change)

/// The SDK's record of one transfer. The SDK owns it: it changes it on its own
/// thread as data arrives, and reuses it for the next file in its queue.
final class LegacyTransfer {
  var fileName: String
  var bytesReceived = 0
  var totalBytes: Int

  init(fileName: String, totalBytes: Int) {
    self.fileName = fileName
    self.totalBytes = totalBytes
  }
}

/// The SDK's delegate protocol. It predates Swift concurrency: no `Sendable`,
/// no actors, only what its documentation promises.
protocol LegacyDownloadDelegate: AnyObject {
  /// Called after each chunk on one of the SDK's worker threads, never the main thread.
  func downloader(didReceiveDataFor transfer: LegacyTransfer)
  /// Called on the main thread when a file is complete. As soon as it returns,
  /// the SDK tells the system it is done, and the system takes the
  /// app-switcher snapshot of the screen.
  func downloader(didFinish transfer: LegacyTransfer)
}

// MARK: - The app

/// One moment of a transfer, as the screen shows it.
struct ProgressUpdate: Equatable, Sendable, CustomStringConvertible {
  var fileName: String
  var bytesReceived: Int
  var totalBytes: Int
  var description: String { "\(fileName): \(bytesReceived) of \(totalBytes) bytes" }
}

/// What the download screen shows.
enum DownloadStatus: Equatable, Sendable {
  case idle
  case downloading(ProgressUpdate)
  case finished(fileName: String, size: Int)
}

/// The state behind the download screen; `render` draws it.
@MainActor
final class DownloadViewModel {
  private(set) var status = DownloadStatus.idle
  private let render: @MainActor (DownloadStatus) -> Void

  init(render: @escaping @MainActor (DownloadStatus) -> Void = { _ in }) {
    self.render = render
  }

  func show(_ update: ProgressUpdate) {
    status = .downloading(update)
    render(status)
  }

  func finish(fileName: String, size: Int) {
    status = .finished(fileName: fileName, size: size)
    render(status)
  }
}

/// Forwards the SDK's callbacks to the download screen.
// Fix 4: checked `Sendable`: a main-actor view model and a stream continuation.
final class ProgressAdapter: LegacyDownloadDelegate, Sendable {
  private let viewModel: DownloadViewModel
  private let updates: AsyncStream<ProgressUpdate>.Continuation

  init(viewModel: DownloadViewModel) {
    self.viewModel = viewModel
    let (stream, updates) = AsyncStream.makeStream(of: ProgressUpdate.self)
    self.updates = updates
    // Fix 2: one consumer on the main actor delivers the copies in the order
    // they were yielded. It ends when the adapter goes away (see deinit).
    Task { @MainActor in
      for await update in stream {
        viewModel.show(update)
      }
    }
  }

  deinit {
    updates.finish()
  }

  func downloader(didReceiveDataFor transfer: LegacyTransfer) {
    // Fix 1: copy now, on the SDK's thread, while the SDK waits for this call
    // to return: these are the values of this moment.
    let update = ProgressUpdate(
      fileName: transfer.fileName, bytesReceived: transfer.bytesReceived,
      totalBytes: transfer.totalBytes)
    updates.yield(update)
  }

  func downloader(didFinish transfer: LegacyTransfer) {
    // Fix 1 again: copy the values out first. Even here the compiler will not
    // let the SDK's non-Sendable object into main-actor code.
    let fileName = transfer.fileName
    let size = transfer.totalBytes
    // Fix 3: the SDK calls this on the main thread, so run on the main actor
    // now, synchronously. (From any other thread this traps: it is a checked
    // promise, not a hop. For callbacks on unknown threads, copy and hop.)
    MainActor.assumeIsolated {
      viewModel.finish(fileName: fileName, size: size)
    }
  }
}
