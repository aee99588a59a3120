import ConcurrencyTestKit
import Synchronization
import Testing

@testable import TaskOwnership

private struct CardDeclined: Error, CustomStringConvertible {
  var description: String { "CardDeclined" }
}

// MARK: - Checkout

/// The payment backend: answered through a gate, and it notes the trace id it sees.
private struct FakePayments: PaymentService {
  let gate: CallGate<Order, Receipt>
  let events: EventLog

  func charge(_ order: Order) async throws -> Receipt {
    events.record(.note("charge sees trace id \(Trace.id ?? "none")", in: .code))
    return try await gate.call(order)
  }
}

private let order = Order(id: "o-1", amount: 42)
private let receipt = Receipt(number: "r-1")

@MainActor
private struct Checkout {
  let events = EventLog()
  let charge: CallGate<Order, Receipt>
  let model: CheckoutModel

  init(paymentsIgnoreCancellation: Bool = false) {
    charge = CallGate("charge", events: events, ignoresCancellation: paymentsIgnoreCancellation)
    model = CheckoutModel(service: FakePayments(gate: charge, events: events))
  }

  func tapPay() -> Task<Void, Never> {
    events.record(.call("user taps Pay", from: .caller("user"), label: "taps Pay"))
    return model.submit(order)
  }

  /// Taps Pay once more after the first payment ended, and expects it to go through.
  func payAgain(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let again = tapPay()
    try await charge.waitForCall(1, sourceLocation: sourceLocation)
    charge.succeed(1, with: receipt)
    try await finish(again, "the new payment", sourceLocation: sourceLocation)
    events.expect(
      model.state, equals: .succeeded(receipt), "The new payment goes through", sourceLocation: sourceLocation
    )
  }

  func finish(_ task: Task<Void, Never>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
  {
    try await events.withinTimeLimit(what, sourceLocation: sourceLocation) { await task.value }
    events.record(.publish("state = \(model.state)", to: .caller("screen"), label: "\(model.state)"))
  }
}

@MainActor
@Suite("05 Task ownership: checkout", .exercising("CheckoutModel.submit(_:)"))
struct CheckoutTests {
  @Test("The caller can await the payment it started")
  func awaitable() async throws {
    let checkout = Checkout()
    let payment = checkout.tapPay()
    try await checkout.charge.waitForCall(0)
    checkout.charge.succeed(0, with: receipt)
    try await checkout.finish(payment, "the payment")
    checkout.events.expect(checkout.model.state, equals: .succeeded(receipt), "The receipt is shown")
  }

  @Test(
    "cancel() stops the payment in flight and returns to idle, not failed",
    .exercising("CheckoutModel.cancel()"))
  func cancelStopsThePayment() async throws {
    let checkout = Checkout()
    let payment = checkout.tapPay()
    try await checkout.charge.waitForCall(0)
    checkout.events.record(.call("user taps Cancel", from: .caller("user"), label: "taps Cancel"))
    checkout.model.cancel()
    try await checkout.charge.waitForCancellation(of: 0)
    try await checkout.finish(payment, "the cancelled payment")
    checkout.events.expect(checkout.model.state, equals: .idle, "The screen is back to idle")
  }

  @Test("After Cancel, Pay starts a new payment", .exercising("CheckoutModel.cancel()"))
  func payAgainAfterCancel() async throws {
    let checkout = Checkout()
    let first = checkout.tapPay()
    try await checkout.charge.waitForCall(0)
    checkout.events.record(.call("user taps Cancel", from: .caller("user"), label: "taps Cancel"))
    checkout.model.cancel()
    try await checkout.finish(first, "the cancelled payment")
    try await checkout.payAgain()
  }

  @Test("Pay tapped right after Cancel starts a new payment at once", .exercising("CheckoutModel.cancel()"))
  func payRightAfterCancel() async throws {
    let checkout = Checkout()
    let first = checkout.tapPay()
    try await checkout.charge.waitForCall(0)
    checkout.events.record(.call("user taps Cancel", from: .caller("user"), label: "taps Cancel"))
    checkout.model.cancel()
    let second = checkout.tapPay()
    try await checkout.charge.waitForCall(1)
    try await checkout.finish(first, "the cancelled payment")
    checkout.events.expect(
      checkout.model.state, equals: .submitting,
      "The cancelled payment winds down quietly; the new payment is still in flight")
    checkout.charge.succeed(1, with: receipt)
    try await checkout.finish(second, "the new payment")
    checkout.events.expect(checkout.model.state, equals: .succeeded(receipt), "The new payment goes through")
  }

  @Test("A cancelled payment winding down never touches the newer payment")
  func cancelledPaymentLeavesNewerOneAlone() async throws {
    let checkout = Checkout(paymentsIgnoreCancellation: true)
    let first = checkout.tapPay()
    try await checkout.charge.waitForCall(0)
    checkout.events.record(.call("user taps Cancel", from: .caller("user"), label: "taps Cancel"))
    checkout.model.cancel()
    let second = checkout.tapPay()
    try await checkout.charge.waitForCall(1)
    try await checkout.charge.waitForCancellation(of: 0)
    checkout.charge.succeed(0, with: Receipt(number: "r-cancelled"))
    try await checkout.finish(first, "the cancelled payment, answered late")
    checkout.events.expect(
      checkout.model.state, equals: .submitting,
      "The cancelled payment's late receipt is not shown; the new payment is still in flight")
    let third = checkout.tapPay()
    try checkout.events.require(
      checkout.charge.callCount, equals: 2,
      "A tap while the new payment is in flight does not charge again, even after the cancelled one ended")
    checkout.charge.succeed(1, with: receipt)
    try await checkout.finish(second, "the new payment")
    try await checkout.finish(third, "the third tap's task")
    checkout.events.expect(
      checkout.model.state, equals: .succeeded(receipt), "The new payment's receipt is shown")
  }

  @Test("After a declined card, Pay starts a new payment")
  func payAgainAfterFailure() async throws {
    let checkout = Checkout()
    let first = checkout.tapPay()
    try await checkout.charge.waitForCall(0)
    checkout.charge.fail(0, with: CardDeclined())
    try await checkout.finish(first, "the declined payment")
    try await checkout.payAgain()
  }

  @Test("A second tap while paying does not start a second payment")
  func doubleTap() async throws {
    let checkout = Checkout()
    let first = checkout.tapPay()
    try await checkout.charge.waitForCall(0)
    let second = checkout.tapPay()
    checkout.charge.succeed(0, with: receipt)
    try await checkout.finish(first, "the first tap's payment")
    try await checkout.finish(second, "the second tap's task")
    checkout.events.expect(checkout.charge.callCount, equals: 1, "The card is charged once")
    checkout.events.expect(checkout.model.state, equals: .succeeded(receipt), "The receipt is shown")
  }

  @Test("The payment runs with the caller's trace id")
  func traceID() async throws {
    let checkout = Checkout()
    let payment = Trace.$id.withValue("trace-42") { checkout.tapPay() }
    try await checkout.charge.waitForCall(0)
    checkout.events.expect(
      checkout.events.sentences.contains("charge sees trace id trace-42"),
      "The payment service sees the trace id of the tap that started it",
      actual: checkout.events.sentences.first { $0.hasPrefix("charge sees") } ?? "charge was not called")
    checkout.charge.succeed(0, with: receipt)
    try await checkout.finish(payment, "the payment")
  }

  @Test("A declined card is shown as a failure")
  func failure() async throws {
    let checkout = Checkout()
    let payment = checkout.tapPay()
    try await checkout.charge.waitForCall(0)
    checkout.charge.fail(0, with: CardDeclined())
    try await checkout.finish(payment, "the payment")
    if case .failed = checkout.model.state {
    } else {
      checkout.events.expect(false, "The failure is shown", actual: "state is \(checkout.model.state)")
    }
  }
}

// MARK: - Feed

private struct FakeFeed: FeedService {
  let gate: CallGate<Int, [String]>
  func loadFeed(page: Int) async throws -> [String] { try await gate.call(page) }
}

private func posts(page: Int) -> [String] { ["post \(page).1", "post \(page).2"] }

@MainActor
@Suite("05 Task ownership: feed", .exercising("FeedModel.load(page:)"))
struct FeedTests {
  @Test("Shows the page it loaded")
  func showsPage() async throws {
    let events = EventLog()
    let gate = CallGate<Int, [String]>("loadFeed", events: events)
    let model = FeedModel(service: FakeFeed(gate: gate))
    let load = model.load(page: 1)
    try await gate.waitForCall(0)
    gate.succeed(0, with: posts(page: 1))
    try await events.withinTimeLimit("the load") { await load.value }
    events.expect(model.posts, equals: posts(page: 1), "Page 1 is on screen")
  }

  @Test("A new load cancels the previous one, and the old result never lands")
  func newLoadCancelsOld() async throws {
    let events = EventLog()
    let gate = CallGate<Int, [String]>("loadFeed", events: events, ignoresCancellation: true)
    let model = FeedModel(service: FakeFeed(gate: gate))
    let old = model.load(page: 1)
    try await gate.waitForCall(0)
    let new = model.load(page: 2)
    try await gate.waitForCall(1)
    try await gate.waitForCancellation(of: 0)
    gate.succeed(1, with: posts(page: 2))
    try await events.withinTimeLimit("the load of page 2") { await new.value }
    gate.succeed(0, with: posts(page: 1))
    try await events.withinTimeLimit("the load of page 1, answered late") { await old.value }
    events.expect(model.posts, equals: posts(page: 2), "Page 2 stays on screen")
  }

  @Test("stop() cancels the load in flight, and nothing lands afterwards", .exercising("FeedModel.stop()"))
  func stopCancels() async throws {
    let events = EventLog()
    let gate = CallGate<Int, [String]>("loadFeed", events: events, ignoresCancellation: true)
    let model = FeedModel(service: FakeFeed(gate: gate))
    let load = model.load(page: 1)
    try await gate.waitForCall(0)
    events.record(.call("screen disappears: stop()", from: .caller("screen"), label: "disappears: stop()"))
    model.stop()
    try await gate.waitForCancellation(of: 0)
    gate.succeed(0, with: posts(page: 1))
    try await events.withinTimeLimit("the load answered after stop()") { await load.value }
    events.expect(model.posts, equals: [], "Nothing is shown after stop()")
  }

  @Test("Releasing the model cancels its work")
  func releaseCancels() async throws {
    let events = EventLog()
    let gate = CallGate<Int, [String]>("loadFeed", events: events)
    var model: FeedModel? = FeedModel(service: FakeFeed(gate: gate))
    // `weak let` (SE-0481) needs Swift 6.3; Xcode 26's first Swift 6.2
    // compilers know only `weak var`, which 6.3 warns is never mutated.
    #if compiler(>=6.3)
      weak let released = model
    #else
      weak var released = model
    #endif
    _ = model?.load(page: 1)
    try await gate.waitForCall(0)
    events.record(
      .call("the screen lets go of its model", from: .caller("screen"), label: "lets go of its model"))
    model = nil
    try await gate.waitForCancellation(of: 0)
    events.expect(released == nil, "The model is gone", actual: "something still holds the model")
  }
}
