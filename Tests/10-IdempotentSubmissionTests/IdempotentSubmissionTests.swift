import ConcurrencyTestKit
import Synchronization
import Testing

@testable import IdempotentSubmission

// MARK: - The state machine

private enum Event: String, CaseIterable {
  case begin, succeed, failRetryable, failFinal, retry, reset

  func apply(to machine: inout SubmissionMachine) throws {
    switch self {
    case .begin: try machine.begin(key: "key-2")
    case .succeed: try machine.succeed(Receipt(orderNumber: "R-9"))
    case .failRetryable: try machine.fail(reason: "unavailable", retryable: true)
    case .failFinal: try machine.fail(reason: "declined", retryable: false)
    case .retry: _ = try machine.retry()
    case .reset: try machine.reset()
    }
  }
}

/// A machine brought to a state by valid steps.
private func machine(after events: [Event]) throws -> SubmissionMachine {
  var machine = SubmissionMachine()
  for event in events { try event.apply(to: &machine) }
  return machine
}

@Suite("10 Idempotent submission: the state machine", .exercising("SubmissionMachine"))
struct SubmissionMachineTests {
  @Test("Only valid transitions are allowed; the others throw invalidTransition")
  func transitions() throws {
    let events = EventLog()
    let states: [(String, [Event])] = [
      ("idle", []),
      ("submitting", [.begin]),
      ("succeeded", [.begin, .succeed]),
      ("retryableFailure", [.begin, .failRetryable]),
      ("terminalFailure", [.begin, .failFinal]),
    ]
    // What must be allowed, and what must be refused, from each state. Moves
    // not listed (starting afresh from a failure, say) are the design's choice.
    let allowed: [String: Set<Event>] = [
      "idle": [.begin],
      "submitting": [.succeed, .failRetryable, .failFinal],
      "succeeded": [.reset],
      "retryableFailure": [.retry, .reset],
      "terminalFailure": [.reset],
    ]
    let refused: [String: Set<Event>] = [
      "idle": [.succeed, .failRetryable, .failFinal, .retry],
      "submitting": [.begin, .retry, .reset],
      "succeeded": [.begin, .succeed, .failRetryable, .failFinal, .retry],
      "retryableFailure": [.succeed, .failRetryable, .failFinal],
      "terminalFailure": [.succeed, .failRetryable, .failFinal, .retry],
    ]
    var wrong: [String] = []
    for (name, steps) in states {
      for event in Event.allCases {
        var machine = try machine(after: steps)
        let before = machine
        var threw = false
        do { try event.apply(to: &machine) } catch { threw = true }
        if allowed[name]!.contains(event), threw {
          wrong.append("\(event.rawValue) from \(name) was refused")
        }
        if refused[name]!.contains(event) {
          if !threw { wrong.append("\(event.rawValue) from \(name) was allowed") }
          if machine != before { wrong.append("\(event.rawValue) from \(name) changed the state") }
        }
      }
    }
    events.expect(wrong, equals: [], "Every transition is allowed or refused as the rules say")
  }

  @Test("A refused transition says where it came from", .exercising("SubmissionMachine.retry()"))
  func refusalNamesTheState() throws {
    let events = EventLog()
    var machine = try machine(after: [.begin, .failFinal])
    do {
      _ = try machine.retry()
      events.expect(false, "Retrying a final failure throws", actual: "it did not throw")
    } catch {
      events.expect(
        error as? SubmissionError,
        equals: .invalidTransition(from: .terminalFailure(reason: "declined"), event: "retry"),
        "The error names the state and the event")
    }
  }

  @Test("A retry after a retryable failure keeps the key", .exercising("SubmissionMachine.retry()"))
  func retryKeepsKey() throws {
    let events = EventLog()
    var machine = SubmissionMachine()
    try machine.begin(key: "key-1")
    try machine.fail(reason: "unavailable", retryable: true)
    events.expect(try machine.retry(), equals: "key-1", "The retry sends the original key")
    events.expect(machine.state, equals: .submitting(key: "key-1"), "The submission is in flight again")
  }
}

// MARK: - The submitter

private struct Placement: Equatable, Sendable, CustomStringConvertible {
  var order: Order
  var key: String
  var description: String { "\(order), key: \(key)" }
}

/// An order server that honours idempotency keys; the check decides how each
/// request ends, including the awkward ways.
private final class FakeOrderServer: OrderServer, Sendable {
  let events: EventLog
  let place: CallGate<Placement, Receipt>
  private let orders = Mutex<[String: Receipt]>([:])

  init(events: EventLog) {
    self.events = events
    place = CallGate("placeOrder", events: events)
  }

  func placeOrder(_ order: Order, idempotencyKey: String) async throws -> Receipt {
    // A key the server has placed an order for is answered at once, as the
    // real server does: the first order's receipt, and nothing new placed.
    if let placed = orders.withLock({ $0[idempotencyKey] }) {
      events.record(
        .answer(
          "placeOrder(\(order), key: \(idempotencyKey)): key seen before, returns \(placed)",
          from: .service("placeOrder"), label: "\(placed)"))
      return placed
    }
    return try await place.call(Placement(order: order, key: idempotencyKey))
  }

  func orderStatus(idempotencyKey: String) async throws -> Receipt? {
    events.record(
      .call(
        "orderStatus(key: \(idempotencyKey)) called", to: .service("orderStatus"),
        label: "orderStatus(key: \(idempotencyKey))"))
    let receipt = orders.withLock { $0[idempotencyKey] }
    events.record(
      .answer(
        "orderStatus(key: \(idempotencyKey)) returned \(show(receipt))", from: .service("orderStatus"),
        label: show(receipt)))
    return receipt
  }

  var orderCount: Int { orders.withLock { $0.count } }

  /// Places the order of call `index` (once per key) and returns its receipt.
  func commit(_ index: Int) {
    place.succeed(index, with: store(index))
  }

  /// Places the order, then the answer is lost on the way back.
  func commitThenTimeOut(_ index: Int) {
    _ = store(index)
    events.record(.note("the server placed the order, but its answer is lost", in: .service("server")))
    place.fail(index, with: OrderServerError.timedOut)
  }

  /// Times out before placing anything.
  func timeOutWithoutCommit(_ index: Int) {
    events.record(.note("the request times out before the server places anything", in: .service("server")))
    place.fail(index, with: OrderServerError.timedOut)
  }

  private func store(_ index: Int) -> Receipt {
    let key = place.arguments[index].key
    return orders.withLock { orders in
      if let existing = orders[key] { return existing }
      let receipt = Receipt(orderNumber: "R-\(orders.count + 1)")
      orders[key] = receipt
      return receipt
    }
  }
}

private let book = Order(item: "Swift book", quantity: 1)
private let mug = Order(item: "Mug", quantity: 2)

@MainActor
private struct CheckoutScreen {
  let events = EventLog()
  let server: FakeOrderServer
  let submitter: OrderSubmitter

  init() {
    server = FakeOrderServer(events: events)
    let counter = Mutex(0)
    submitter = OrderSubmitter(
      server: server,
      makeKey: {
        let n = counter.withLock { n in
          n += 1
          return n
        }
        return "key-\(n)"
      })
  }

  func tapPlaceOrder(_ order: Order) -> Task<Void, Never> {
    events.record(
      .call("user taps Place order (\(order))", from: .caller("user"), label: "taps Place order (\(order))"))
    let submitter = self.submitter
    return Task { await submitter.submit(order) }
  }

  func tapTryAgain() -> Task<Void, Never> {
    events.record(.call("user taps Try again", from: .caller("user"), label: "taps Try again"))
    let submitter = self.submitter
    return Task { await submitter.retry() }
  }

  func finish(_ task: Task<Void, Never>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
  {
    try await events.withinTimeLimit(what, sourceLocation: sourceLocation) { await task.value }
    events.record(.publish("state = \(submitter.state)", to: .caller("screen"), label: "\(submitter.state)"))
  }

  var keys: [String] { server.place.arguments.map(\.key) }
}

@MainActor
@Suite("10 Idempotent submission: the submitter", .exercising("OrderSubmitter.submit(_:)"))
struct OrderSubmitterTests {
  @Test("Places the order and shows the receipt")
  func happyPath() async throws {
    let screen = CheckoutScreen()
    let tap = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.server.commit(0)
    try await screen.finish(tap, "the submission")
    screen.events.expect(
      screen.submitter.state, equals: .succeeded(Receipt(orderNumber: "R-1")), "The receipt is shown")
  }

  @Test("A double tap while submitting sends one order")
  func doubleTap() async throws {
    let screen = CheckoutScreen()
    let first = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    let second = screen.tapPlaceOrder(book)
    try await screen.finish(second, "the second tap, while the first request is out")
    screen.server.commit(0)
    try await screen.finish(first, "the first tap's submission")
    screen.events.expect(screen.server.place.callCount, equals: 1, "One request is sent")
    screen.events.expect(screen.server.orderCount, equals: 1, "The server holds one order")
    screen.events.expect(
      screen.submitter.state, equals: .succeeded(Receipt(orderNumber: "R-1")), "The receipt is shown")
  }

  @Test("A tap on Place order after the receipt is shown sends nothing")
  func tapAfterReceipt() async throws {
    let screen = CheckoutScreen()
    let first = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.server.commit(0)
    try await screen.finish(first, "the first tap's submission")
    let late = screen.tapPlaceOrder(book)
    try await screen.finish(late, "the tap after the receipt")
    screen.events.expect(screen.server.place.callCount, equals: 1, "Nothing is sent again")
    screen.events.expect(screen.server.orderCount, equals: 1, "The server holds one order")
    screen.events.expect(
      screen.submitter.state, equals: .succeeded(Receipt(orderNumber: "R-1")), "The receipt stays on screen")
  }

  @Test(
    "Try again reuses the idempotency key, and the server holds one order",
    .exercising("OrderSubmitter.retry()"))
  func retryReusesKey() async throws {
    let screen = CheckoutScreen()
    let tap = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.server.place.fail(0, with: OrderServerError.unavailable)
    try await screen.finish(tap, "the failed submission")
    let retry = screen.tapTryAgain()
    try await screen.server.place.waitForCall(1)
    screen.events.expect(screen.keys[1], equals: screen.keys[0], "The retry sends the same key")
    screen.server.commit(1)
    try await screen.finish(retry, "the retry")
    screen.events.expect(screen.server.orderCount, equals: 1, "The server holds one order")
    screen.events.expect(
      screen.submitter.state, equals: .succeeded(Receipt(orderNumber: "R-1")), "The receipt is shown")
  }

  @Test(
    "A timeout after the server placed the order ends with the original receipt, and no second order",
    .exercising("OrderSubmitter.send(_:key:)"))
  func timeoutAfterCommit() async throws {
    let screen = CheckoutScreen()
    let tap = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.server.commitThenTimeOut(0)
    try await screen.finish(tap, "the submission that timed out")
    screen.events.expect(
      screen.submitter.state, equals: .succeeded(Receipt(orderNumber: "R-1")),
      "The order the server placed is found: its original receipt is shown")
    screen.events.expect(screen.server.orderCount, equals: 1, "The server holds one order")
  }

  @Test(
    "A timeout before the server placed anything resubmits with the same key",
    .exercising("OrderSubmitter.send(_:key:)"))
  func timeoutBeforeCommit() async throws {
    let screen = CheckoutScreen()
    let tap = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.server.timeOutWithoutCommit(0)
    try await screen.server.place.waitForCall(1)
    screen.events.expect(screen.keys[1], equals: screen.keys[0], "The resubmission sends the same key")
    screen.server.commit(1)
    try await screen.finish(tap, "the submission")
    screen.events.expect(
      screen.submitter.state, equals: .succeeded(Receipt(orderNumber: "R-1")), "The receipt is shown")
    screen.events.expect(screen.server.orderCount, equals: 1, "The server holds one order")
  }

  @Test(
    "A timeout, then a rejected resubmission: the rejection is final",
    .exercising("OrderSubmitter.send(_:key:)"))
  func timeoutThenRejected() async throws {
    let screen = CheckoutScreen()
    let tap = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.server.timeOutWithoutCommit(0)
    try await screen.server.place.waitForCall(1)
    screen.events.expect(screen.keys[1], equals: screen.keys[0], "The resubmission sends the same key")
    screen.server.place.fail(1, with: OrderServerError.rejected("card declined"))
    try await screen.finish(tap, "the submission")
    let rejected = SubmissionState.terminalFailure(reason: "card declined")
    try screen.events.require(
      screen.submitter.state, equals: rejected, "The rejection of the resubmission is final")
    let retry = screen.tapTryAgain()
    try await screen.finish(retry, "Try again after the rejection")
    screen.events.expect(screen.server.place.callCount, equals: 2, "Nothing is sent again")
    screen.events.expect(screen.server.orderCount, equals: 0, "The server holds no order")
    screen.events.expect(screen.submitter.state, equals: rejected, "The state does not change")
  }

  @Test("A new order gets a new key", .exercising("OrderSubmitter.startNewOrder()"))
  func newOrderNewKey() async throws {
    let screen = CheckoutScreen()
    let first = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.server.commit(0)
    try await screen.finish(first, "the first order")
    screen.events.record(.call("user starts a new order", from: .caller("user"), label: "starts a new order"))
    screen.submitter.startNewOrder()
    let second = screen.tapPlaceOrder(mug)
    try await screen.server.place.waitForCall(1)
    screen.events.expect(
      screen.keys[1] != screen.keys[0], "The new order has a key of its own", actual: "keys \(screen.keys)")
    screen.server.commit(1)
    try await screen.finish(second, "the second order")
    screen.events.expect(screen.server.orderCount, equals: 2, "The server holds two orders")
  }

  @Test(
    "Starting over while an order is on its way sends nothing new and keeps its receipt",
    .exercising("OrderSubmitter.startNewOrder()"))
  func startOverWhileSubmitting() async throws {
    let screen = CheckoutScreen()
    let first = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.events.record(
      .call(
        "user starts a new order while the first one is on its way", from: .caller("user"),
        label: "starts a new order while the first one is on its way"))
    screen.submitter.startNewOrder()
    let second = screen.tapPlaceOrder(mug)
    try await screen.finish(second, "the tap on the new order, while the first request is out")
    screen.server.commit(0)
    try await screen.finish(first, "the first order's submission")
    screen.events.expect(
      screen.server.place.callCount, equals: 1, "Nothing new is sent while the first order is on its way")
    screen.events.expect(
      screen.submitter.state, equals: .succeeded(Receipt(orderNumber: "R-1")),
      "The first order's receipt is shown")
  }

  @Test("A rejected order is final: Try again sends nothing", .exercising("OrderSubmitter.retry()"))
  func terminalFailure() async throws {
    let screen = CheckoutScreen()
    let tap = screen.tapPlaceOrder(book)
    try await screen.server.place.waitForCall(0)
    screen.server.place.fail(0, with: OrderServerError.rejected("card declined"))
    try await screen.finish(tap, "the rejected submission")
    let rejected = SubmissionState.terminalFailure(reason: "card declined")
    try screen.events.require(screen.submitter.state, equals: rejected, "The rejection is final")
    let retry = screen.tapTryAgain()
    try await screen.finish(retry, "Try again after a final failure")
    screen.events.expect(screen.server.place.callCount, equals: 1, "Nothing is sent again")
    screen.events.expect(screen.submitter.state, equals: rejected, "The state does not change")
  }
}
