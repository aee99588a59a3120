// Chapter 05: Task ownership (exercise 1 of 2)
//
// Goal: the checkout model owns the payment task it starts. `cancel()` stops a
// payment in flight and returns to idle; a second tap on "Pay" while a payment
// is in flight does not start another; the payment runs with the caller's
// trace id; the caller can await the work it started.
//
// Run `swift run workshop check 05` to see which behaviours still fail.

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

  init(service: any PaymentService) {
    self.service = service
  }

  /// Starts paying for `order` and returns the task doing it.
  @discardableResult
  func submit(_ order: Order) -> Task<Void, Never> {
    state = .submitting
    let service = self.service
    // TODO: "Detached, to run in the background": but a detached task keeps
    // nothing of its creator, not even the trace id. And nobody keeps its
    // handle, so nobody can cancel it, and a second tap starts a second one.
    return Task.detached {
      do {
        let receipt = try await service.charge(order)
        await self.finish(.succeeded(receipt))
      } catch {
        await self.finish(.failed("Payment failed: \(error)"))
      }
    }
  }

  /// Called when the user taps "Cancel": stops the payment and returns to idle.
  func cancel() {
    // TODO: Which task is there to cancel?
    state = .idle
  }

  private func finish(_ newState: State) {
    state = newState
  }
}
