// Chapter 09: Single-flight (exercise 2 of 2, reference solution)
//
// Goal: `ImageCache.image(for:)` downloads each URL once, however many callers
// ask for it at the same time; different URLs download in parallel; a failed
// download is not cached, so the next request tries again.
//
// The fix: one download task per URL, stored before the first `await`, shared
// by every caller; removed when it ends, so a failure is not remembered.

/// Downloads image bytes.
protocol ImageDownloader: Sendable {
  func download(_ url: String) async throws -> [UInt8]
}

/// An in-memory cache of downloaded images.
actor ImageCache {
  private let downloader: any ImageDownloader
  private var images: [String: [UInt8]] = [:]
  private var downloads: [String: Task<[UInt8], any Error>] = [:]

  init(downloader: any ImageDownloader) {
    self.downloader = downloader
  }

  /// The image at `url`, downloaded at most once.
  func image(for url: String) async throws -> [UInt8] {
    if let image = images[url] { return image }
    if let download = downloads[url] { return try await download.value }

    let downloader = self.downloader
    // No `self` in this closure, so the download task is not isolated to the
    // cache (a `Task {}` in an actor method inherits the actor only when its
    // closure captures `self`): it runs off the actor and touches no state.
    let download = Task { try await downloader.download(url) }
    downloads[url] = download
    defer { downloads[url] = nil }
    let image = try await download.value
    images[url] = image
    return image
  }
}
