// Chapter 09: Single-flight (exercise 2 of 2)
//
// Goal: `ImageCache.image(for:)` downloads each URL once, however many callers
// ask for it at the same time; different URLs download in parallel; a failed
// download is not cached, so the next request tries again.

/// Downloads image bytes.
protocol ImageDownloader: Sendable {
  func download(_ url: String) async throws -> [UInt8]
}

/// An in-memory cache of downloaded images.
actor ImageCache {
  private let downloader: any ImageDownloader
  private var images: [String: [UInt8]] = [:]

  init(downloader: any ImageDownloader) {
    self.downloader = downloader
  }

  /// The image at `url`, downloaded at most once.
  func image(for url: String) async throws -> [UInt8] {
    if let image = images[url] { return image }
    // TODO: Two cells showing the same avatar both get here before either
    // download has finished.
    let image = try await downloader.download(url)
    images[url] = image
    return image
  }
}
