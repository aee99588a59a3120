// Chapter 15: A session's lifetime (exercise 2 of 2, reference solution)
//
// Goal: `UploadQueue.run()` uploads the pending photos one after another. The
// app calls it in a task that it cancels when it goes to the background and
// starts again when it comes back. A cancelled run stops the upload in
// progress and starts no other; the interrupted photo stays pending, is not a
// failure, and is the first one the next run uploads. No photo is uploaded
// twice or lost, even when a new run starts before the cancelled one ended.
//
// The fixes:
//   1. A photo stays in `pending` until the server has it (or refused it), so
//      an upload that stops leaves it where the next run finds it first.
//   2. `CancellationError` means the app went to the background: the photo is
//      kept for later, not marked failed. Any other error is the server's.
//   3. The loop checks `Task.isCancelled` before each photo: a cancelled run
//      starts nothing more, even when the upload it was in still succeeded.
//   4. The photos being uploaded are marked: a run started while a cancelled
//      one still waits for the server skips that photo instead of sending it
//      a second time. If that late upload stops after all, the photo is
//      still pending, and the next run (or this one, if it is still going)
//      uploads it.

/// The photo server.
protocol PhotoUploader: Sendable {
  /// Uploads one photo; stops with `CancellationError` when its task is cancelled.
  func upload(_ photo: String) async throws
}

/// The photos the user took, waiting to be uploaded.
actor UploadQueue {
  private let uploader: any PhotoUploader
  /// The photos still to upload, oldest first.
  private(set) var pending: [String]
  /// The photos the server has, in the order it got them.
  private(set) var uploaded: [String] = []
  /// The photos the server refused.
  private(set) var failed: [String] = []
  /// The photos whose upload is in progress, in this run or an older one.
  private var uploading: Set<String> = []

  init(uploader: any PhotoUploader, photos: [String] = []) {
    self.uploader = uploader
    self.pending = photos
  }

  /// Queues a photo the user just took.
  func add(_ photo: String) {
    pending.append(photo)
  }

  /// Uploads the pending photos one by one, until none is left or the task
  /// running it is cancelled (the app went to the background).
  func run() async {
    while !Task.isCancelled, let photo = pending.first(where: { !uploading.contains($0) }) {
      uploading.insert(photo)
      defer { uploading.remove(photo) }
      do {
        try await uploader.upload(photo)
        pending.removeAll { $0 == photo }
        uploaded.append(photo)
      } catch is CancellationError {
        // Stopped for the background: it stays pending.
      } catch {
        pending.removeAll { $0 == photo }
        failed.append(photo)
      }
    }
  }
}
