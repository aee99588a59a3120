// Chapter 02: Task groups (exercise 2 of 4, reference solution)
//
// Goal: `resizeAll(_:maxWidth:maxConcurrent:using:)` resizes every image, with
// never more than `maxConcurrent` resizes running at once and that many kept
// busy while work remains (a sliding window); results come back in input
// order; a limit below 1 is a clear error.
//
// The fixes:
//   1. The limit is validated first: a limit below 1 throws
//      `ResizeError.invalidConcurrencyLimit` before any work starts. Without
//      the guard, 0 would start nothing and then trap on the first missing
//      image (`$0!`), and a negative limit would trap on the range
//      `0..<min(maxConcurrent, images.count)`.
//   2. A sliding window: start `maxConcurrent` resizes, then start the next
//      one each time one finishes. The group never holds more than the limit.
//   3. Each child returns its index, so results land in input order.

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
  guard maxConcurrent >= 1 else { throw ResizeError.invalidConcurrencyLimit(maxConcurrent) }
  return try await withThrowingTaskGroup(of: (Int, Image).self) { group in
    var next = 0
    func startNext() {
      guard next < images.count else { return }
      let index = next
      let image = images[index]
      group.addTask { (index, try await transformer.resize(image, maxWidth: maxWidth)) }
      next += 1
    }
    for _ in 0..<min(maxConcurrent, images.count) { startNext() }

    var resized = [Image?](repeating: nil, count: images.count)
    for try await (index, image) in group {
      resized[index] = image
      startNext()  // One finished: one more may start.
    }
    return resized.map { $0! }
  }
}
