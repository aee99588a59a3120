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
//   3. Each payment has an id; only the payment still in flight may publish
//      its outcome and clear the handle. A payment cancelled by `cancel()`
//      (already back to idle) writes nothing when it winds down.

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
  /// The payment in flight, owned by the model, with an id of its own.
  private var payment: (id: Int, task: Task<Void, Never>)?
  private var lastPaymentID = 0

  init(service: any PaymentService) {
    self.service = service
  }

  /// Starts paying for `order` and returns the task doing it.
  @discardableResult
  func submit(_ order: Order) -> Task<Void, Never> {
    // A second tap while paying joins the payment in flight.
    if let payment { return payment.task }
    state = .submitting
    lastPaymentID += 1
    let id = lastPaymentID
    let service = self.service
    let task = Task {
      let outcome: State
      do {
        outcome = .succeeded(try await service.charge(order))
      } catch is CancellationError {
        outcome = .idle
      } catch {
        outcome = .failed("Payment failed: \(error)")
      }
      // Only the payment still in flight may change the screen: after
      // `cancel()`, or once a newer payment started, this one stays quiet.
      guard self.payment?.id == id else { return }
      self.payment = nil
      state = outcome
    }
    payment = (id, task)
    return task
  }

  /// Called when the user taps "Cancel": stops the payment and returns to idle.
  func cancel() {
    payment?.task.cancel()
    payment = nil
    state = .idle
  }
}
