// Chapter 02: Task groups (exercise 1 of 4)
//
// Goal: `loadThumbnails(for:from:)` loads every product's thumbnail at the same
// time and returns each product's own thumbnail, whatever order the downloads
// finish in.
//
// Run `swift run workshop check 02` to see which behaviours still fail.

/// A small preview image of a product.
struct Thumbnail: Equatable, Sendable, CustomStringConvertible {
  var pixels: String
  var description: String { "Thumbnail(\(pixels))" }
}

/// The image backend.
protocol ThumbnailService: Sendable {
  func thumbnail(for productID: Int) async throws -> Thumbnail
}

/// Loads the thumbnails of `productIDs` concurrently, keyed by product id.
func loadThumbnails(
  for productIDs: [Int], from service: any ThumbnailService
) async throws -> [Int: Thumbnail] {
  try await withThrowingTaskGroup(of: Thumbnail.self) { group in
    for id in productIDs {
      group.addTask { try await service.thumbnail(for: id) }
    }
    var thumbnails: [Int: Thumbnail] = [:]
    var index = 0
    // TODO: A group hands back results in the order they *finish*, not the
    // order the tasks were added. Which product does each result belong to?
    for try await thumbnail in group {
      thumbnails[productIDs[index]] = thumbnail
      index += 1
    }
    return thumbnails
  }
}
