// Chapter 12: Sendable and data races (exercise 2 of 2)
//
// Goal: the download screen shows every progress update the SDK reports, in
// order and with the values of that moment, without a data race with the
// SDK's thread; and it shows "finished" before the SDK's main-thread
// callback returns.

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
final class ProgressAdapter: LegacyDownloadDelegate, @unchecked Sendable {
  private let viewModel: DownloadViewModel

  init(viewModel: DownloadViewModel) {
    self.viewModel = viewModel
  }

  func downloader(didReceiveDataFor transfer: LegacyTransfer) {
    // TODO: `nonisolated(unsafe)` silenced "sending 'transfer' risks causing
    // data races". The task below runs later, on the main actor, while the
    // SDK's thread goes on changing `transfer`. What will it read?
    nonisolated(unsafe) let transfer = transfer
    Task { @MainActor in
      viewModel.show(
        ProgressUpdate(
          fileName: transfer.fileName, bytesReceived: transfer.bytesReceived,
          totalBytes: transfer.totalBytes))
    }
  }

  func downloader(didFinish transfer: LegacyTransfer) {
    // TODO: This callback already runs on the main thread. Does the screen say
    // "finished" by the time it returns? And what is left in `transfer` when
    // this task finally runs?
    nonisolated(unsafe) let transfer = transfer
    Task { @MainActor in
      viewModel.finish(fileName: transfer.fileName, size: transfer.totalBytes)
    }
  }
}
