import ConcurrencyTestKit
import Synchronization
import Testing

/// Two tasks: `a` records 1, lets others run, records 2; `b` records 3.
private func play(_ executor: StepExecutor, _ events: EventLog) async throws -> [Int] {
  let log = Mutex<[Int]>([])
  let a = executor.spawn("a") {
    log.withLock { $0.append(1) }
    await Task.yield()
    log.withLock { $0.append(2) }
  }
  let b = executor.spawn("b") { log.withLock { $0.append(3) } }
  try await executor.run(until: { a.isFinished && b.isFinished }, "both tasks to finish")
  let order = log.withLock { $0 }
  events.record("recorded \(order)")
  return order
}

@Suite("Orders: every order of the ready jobs, one after the other")
struct OrdersTests {
  @Test("A scenario that holds in every order is played once per order, all of them")
  func everyOrder() async throws {
    let seen = Mutex<Set<[Int]>>([])
    let explored = try await Orders.explore("a and b") { executor, events in
      let order = try await play(executor, events)
      seen.withLock { _ = $0.insert(order) }
    }
    // Four orders: after b finishes, one more choice point has two ready
    // jobs, and both ways give the same record.
    #expect(explored == Orders.Exploration(played: 4, isComplete: true))
    #expect(seen.withLock { $0 } == [[1, 3, 2], [1, 2, 3], [3, 1, 2]])
  }

  @Test("The first order that breaks the scenario fails the check, with its number and its events")
  func firstFailingOrder() async throws {
    try await withKnownIssue { () async throws -> Void in
      _ = try await Orders.explore("a and b") { executor, events in
        let order = try await play(executor, events)
        events.expect(order, equals: [1, 3, 2], "b runs while a waits")
      }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("b runs while a waits") && text.contains("Actual:   [1, 2, 3]")
        && text.contains("1. order 3 of a and b") && text.contains("recorded [1, 2, 3]")
    }
  }

  @Test("Orders are bounded by how many choices deviate from the oldest ready job, and by the limit")
  func bounds() async throws {
    let none = try await Orders.explore("a and b", deviations: 0) { executor, events in
      _ = try await play(executor, events)
    }
    #expect(none == Orders.Exploration(played: 1, isComplete: true))
    let cut = try await Orders.explore("a and b", upTo: 2) { executor, events in
      _ = try await play(executor, events)
    }
    #expect(cut == Orders.Exploration(played: 2, isComplete: false))
    let one = try await Orders.explore("a and b", deviations: 1) { executor, events in
      _ = try await play(executor, events)
    }
    #expect(
      one == Orders.Exploration(played: 3, isComplete: true), "the one order that deviates twice is left out")
  }
}
