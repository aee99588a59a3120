// Chapter 02: Task groups (exercise 2 of 4)
//
// Goal: `resizeAll(_:maxWidth:maxConcurrent:using:)` resizes every image, with
// never more than `maxConcurrent` resizes running at once and that many kept
// busy while work remains (a sliding window); results come back in input
// order; a limit below 1 is a clear error.

/// An image in the photo library.
struct Image: Equatable, Sendable, CustomStringConvertible {
  var name: String
  var width: Int
  var description: String { "\(name)@\(width)" }
}

/// Resizes one image; expensive, so the app limits how many run at once.
protocol ImageTransformer: Sendable {
  func resize(_ image: Image, maxWidth: Int) async throws -> Image
}

/// Errors of `resizeAll`.
enum ResizeError: Error, Equatable {
  /// `maxConcurrent` was below 1.
  case invalidConcurrencyLimit(Int)
}

/// Resizes `images` to at most `maxWidth`, running at most `maxConcurrent` at a time.
func resizeAll(
  _ images: [Image], maxWidth: Int, maxConcurrent: Int, using transformer: any ImageTransformer
) async throws -> [Image] {
  // TODO: Check `maxConcurrent` before doing anything.
  try await withThrowingTaskGroup(of: (Int, Image).self) { group in
    // TODO: This starts every resize at once, whatever `maxConcurrent` says.
    for (index, image) in images.enumerated() {
      group.addTask { (index, try await transformer.resize(image, maxWidth: maxWidth)) }
    }
    var resized = [Image?](repeating: nil, count: images.count)
    for try await (index, image) in group {
      resized[index] = image
    }
    return resized.map { $0! }
  }
}
