// Chapter 15: A session's lifetime (exercise 2 of 2)
//
// Goal: `UploadQueue.run()` uploads the pending photos one after another. The
// app calls it in a task that it cancels when it goes to the background and
// starts again when it comes back. A cancelled run stops the upload in
// progress and starts no other; the interrupted photo stays pending, is not a
// failure, and is the first one the next run uploads. No photo is uploaded
// twice or lost, even when a new run starts before the cancelled one ended.
//
// Run `swift run workshop check 15` to see which behaviours still fail.

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
    while let photo = pending.first {
      // TODO: The photo leaves the queue before its upload: if the upload
      // stops, nobody uploads it again.
      pending.removeFirst()
      do {
        try await uploader.upload(photo)
        uploaded.append(photo)
      } catch {
        // TODO: Going to the background cancels the upload: not a failure.
        failed.append(photo)
      }
      // TODO: A cancelled run goes on with the next photo, in the background.
    }
  }
}
