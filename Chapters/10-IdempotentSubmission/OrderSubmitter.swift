// Chapter 10: Idempotent submission (exercise 2 of 2)
//
// Goal: the user is charged once per order, whatever happens on the way. A
// double tap sends one request; "Try again" reuses the idempotency key; a
// timeout, where the server may have placed the order or not, is settled by
// asking the server about that key, and resubmits with the same key only if
// nothing was placed; a final failure is not retried; a new order gets a new key.

/// What the user is buying.
struct Order: Equatable, Sendable, CustomStringConvertible {
  var item: String
  var quantity: Int
  var description: String { "\(quantity)x \(item)" }
}

/// Errors the order server reports.
enum OrderServerError: Error, Equatable {
  /// No answer in time: the order may or may not have been placed.
  case timedOut
  /// The server did not process the request; nothing was placed.
  case unavailable
  /// The order was refused for good (declined card, out of stock).
  case rejected(String)
}

/// The order backend. It honours idempotency keys: a key it has seen before
/// gets the first order's receipt back, and no second order is placed.
protocol OrderServer: Sendable {
  func placeOrder(_ order: Order, idempotencyKey: String) async throws -> Receipt
  /// The receipt of the order placed with `idempotencyKey`, or nil if none was.
  func orderStatus(idempotencyKey: String) async throws -> Receipt?
}

/// Submits orders from the checkout screen.
@MainActor
final class OrderSubmitter {
  private(set) var machine = SubmissionMachine()
  private let server: any OrderServer
  private let makeKey: @Sendable () -> String
  private var order: Order?

  var state: SubmissionState { machine.state }

  init(server: any OrderServer, makeKey: @escaping @Sendable () -> String) {
    self.server = server
    self.makeKey = makeKey
  }

  /// The user taps "Place order".
  func submit(_ order: Order) async {
    // TODO: A second tap while the first request is out starts a second one.
    self.order = order
    let key = makeKey()
    try? machine.begin(key: key)
    await send(order, key: key)
  }

  /// The user taps "Try again" after a failure.
  func retry() async {
    guard let order else { return }
    // TODO: A brand-new key turns a retry into a second order.
    let key = makeKey()
    try? machine.begin(key: key)
    await send(order, key: key)
  }

  /// The user starts over with a new order.
  func startNewOrder() {
    try? machine.reset()
    order = nil
  }

  private func send(_ order: Order, key: String) async {
    do {
      let receipt = try await server.placeOrder(order, idempotencyKey: key)
      try? machine.succeed(receipt)
    } catch OrderServerError.rejected(let reason) {
      try? machine.fail(reason: reason, retryable: false)
    } catch {
      // TODO: A timeout does not mean the order failed. It means "we don't know".
      try? machine.fail(reason: "\(error)", retryable: true)
    }
  }
}
