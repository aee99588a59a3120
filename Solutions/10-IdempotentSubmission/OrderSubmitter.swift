// Chapter 10: Idempotent submission (exercise 2 of 2, reference solution)
//
// Goal: the user is charged once per order, whatever happens on the way. A
// double tap sends one request; "Try again" reuses the idempotency key; a
// timeout, where the server may have placed the order or not, is settled by
// asking the server about that key, and resubmits with the same key only if
// nothing was placed; a final failure is not retried; a new order gets a new key.
//
// The fixes:
//   1. The machine says no to a second `begin` while submitting: the second
//      tap returns without sending anything.
//   2. One key per order intent: made in `submit`, reused by `retry` (the
//      machine hands it back), replaced only by a new order.
//   3. A timeout is "unknown", not "failed": ask `orderStatus` with the same
//      key. A receipt means it was placed; nil means it was not, and it is
//      sent again with the same key, which the server deduplicates anyway.

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
    let key = makeKey()
    do {
      try machine.begin(key: key)
    } catch {
      return  // Already submitting (or finished): a second tap sends nothing.
    }
    self.order = order
    await send(order, key: key)
  }

  /// The user taps "Try again" after a failure.
  func retry() async {
    guard let order, let key = try? machine.retry() else { return }  // Not retryable.
    await send(order, key: key)
  }

  /// The user starts over with a new order.
  func startNewOrder() {
    guard (try? machine.reset()) != nil else { return }
    order = nil
  }

  private func send(_ order: Order, key: String) async {
    do {
      let receipt: Receipt
      do {
        receipt = try await server.placeOrder(order, idempotencyKey: key)
      } catch OrderServerError.timedOut {
        // We do not know whether the order was placed: ask, with the same key.
        if let placed = try await server.orderStatus(idempotencyKey: key) {
          receipt = placed
        } else {
          receipt = try await server.placeOrder(order, idempotencyKey: key)
        }
      }
      try? machine.succeed(receipt)
    } catch OrderServerError.rejected(let reason) {
      try? machine.fail(reason: reason, retryable: false)
    } catch {
      try? machine.fail(reason: "\(error)", retryable: true)
    }
  }
}
