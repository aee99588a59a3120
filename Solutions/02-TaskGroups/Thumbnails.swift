// Chapter 02: Task groups (exercise 1 of 4, reference solution)
//
// Goal: `loadThumbnails(for:from:)` loads every product's thumbnail at the same
// time and returns each product's own thumbnail, whatever order the downloads
// finish in.
//
// The fix: each child task returns its product id together with the thumbnail,
// so a result carries its own key instead of borrowing one by arrival order.

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
  try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
    for id in productIDs {
      group.addTask { (id, try await service.thumbnail(for: id)) }
    }
    var thumbnails: [Int: Thumbnail] = [:]
    for try await (id, thumbnail) in group {
      thumbnails[id] = thumbnail
    }
    return thumbnails
  }
}
