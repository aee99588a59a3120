import Foundation
import Synchronization

/// `transform` applied to every element, at most `width` at a time, on plain
/// threads (the dispatch pool adds threads only slowly when its workers block,
/// as these do, waiting for a process); results in the elements' order.
package func concurrentMap<Element: Sendable, Result: Sendable>(
  _ elements: [Element], width: Int, _ transform: @escaping @Sendable (Element) -> Result
) -> [Result] {
  let results = Mutex<[Int: Result]>([:])
  let next = Mutex(0)
  let group = DispatchGroup()
  for _ in 0..<min(width, elements.count) {
    group.enter()
    Thread.detachNewThread {
      defer { group.leave() }
      while true {
        let index = next.withLock { next in
          defer { next += 1 }
          return next
        }
        guard index < elements.count else { return }
        let result = transform(elements[index])
        results.withLock { $0[index] = result }
      }
    }
  }
  group.wait()
  let all = results.withLock { $0 }
  return elements.indices.compactMap { all[$0] }
}
