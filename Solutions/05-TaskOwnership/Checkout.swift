// Chapter 05: Task ownership (exercise 1 of 2, reference solution)
//
// Goal: the checkout model owns the payment task it starts. `cancel()` stops a
// payment in flight and returns to idle; a second tap on "Pay" while a payment
// is in flight does not start another; the payment runs with the caller's
// trace id; the caller can await the work it started.
//
// The fixes:
//   1. `Task {}` instead of `Task.detached`: it inherits the caller's
//      task-local values (the trace id), priority and actor. The network call
//      is an `await` and does not block the main actor anyway.
//   2. The model keeps the handle: `cancel()` cancels it, and a second
//      `submit` while one is in flight returns the same task.
//   3. A cancelled payment ends in `.idle` (set by `cancel()`), not `.failed`,
//      and writes nothing when it winds down.

/// The trace id of the user action being handled, for logs and the backend.
enum Trace {
  @TaskLocal static var id: String?
}

/// What the user is buying.
struct Order: Equatable, Sendable, CustomStringConvertible {
  var id: String
  var amount: Int
  var description: String { "Order(\(id))" }
}

/// Proof of payment.
struct Receipt: Equatable, Sendable, CustomStringConvertible {
  var number: String
  var description: String { "Receipt(\(number))" }
}

/// The payment backend.
protocol PaymentService: Sendable {
  func charge(_ order: Order) async throws -> Receipt
}

/// The state behind the checkout screen.
@MainActor
final class CheckoutModel {
  enum State: Equatable {
    case idle
    case submitting
    case succeeded(Receipt)
    case failed(String)
  }

  private(set) var state: State = .idle
  private let service: any PaymentService
  /// The payment in flight, owned by the model.
  private var payment: Task<Void, Never>?

  init(service: any PaymentService) {
    self.service = service
  }

  /// Starts paying for `order` and returns the task doing it.
  @discardableResult
  func submit(_ order: Order) -> Task<Void, Never> {
    // A second tap while paying joins the payment in flight.
    if let payment { return payment }
    state = .submitting
    let service = self.service
    let task = Task {
      // Finished: no payment in flight any more. (A cancelled task leaves the
      // field alone: `cancel()` cleared it, and it may hold a newer payment.)
      defer { if !Task.isCancelled { self.payment = nil } }
      do {
        let receipt = try await service.charge(order)
        try Task.checkCancellation()
        state = .succeeded(receipt)
      } catch {
        // Cancelled: `cancel()` already put the screen back to idle, and a
        // newer payment may own it by now. Leave it alone.
        guard !Task.isCancelled else { return }
        state = .failed("Payment failed: \(error)")
      }
    }
    payment = task
    return task
  }

  /// Called when the user taps "Cancel": stops the payment and returns to idle.
  func cancel() {
    payment?.cancel()
    payment = nil
    state = .idle
  }
}
