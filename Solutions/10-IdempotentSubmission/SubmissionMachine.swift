// Chapter 10: Idempotent submission (exercise 1 of 2, reference solution)
//
// Goal: `SubmissionMachine` is the one place that decides where a submission
// may go next. It rejects every transition that makes no sense (succeeding
// while idle, starting again while submitting, retrying a final failure) with
// `SubmissionError.invalidTransition`, and a retry keeps the original key.
//
// The fix: every transition first checks the state it starts from and throws
// `invalidTransition` otherwise. The submitter can then lean on the machine:
// if `begin` throws, a submission is already in flight.

/// Proof that the server placed an order.
struct Receipt: Equatable, Sendable, CustomStringConvertible {
  var orderNumber: String
  var description: String { "Receipt(\(orderNumber))" }
}

/// Where a submission stands.
enum SubmissionState: Equatable, Sendable {
  case idle
  /// A request with this idempotency key is on its way.
  case submitting(key: String)
  case succeeded(Receipt)
  /// Failed, nothing placed for sure; may be tried again with the same key.
  case retryableFailure(key: String, reason: String)
  /// Failed for good (the card was declined, say); trying again is pointless.
  case terminalFailure(reason: String)
}

/// Errors of the state machine.
enum SubmissionError: Error, Equatable {
  case invalidTransition(from: SubmissionState, event: String)
}

/// The submission's state and the only transitions it allows.
struct SubmissionMachine: Equatable, Sendable {
  private(set) var state: SubmissionState = .idle

  /// Starts a submission with a new idempotency key.
  mutating func begin(key: String) throws {
    guard case .idle = state else { throw invalid("begin") }
    state = .submitting(key: key)
  }

  /// The server placed the order.
  mutating func succeed(_ receipt: Receipt) throws {
    guard case .submitting = state else { throw invalid("succeed") }
    state = .succeeded(receipt)
  }

  /// The attempt failed; `retryable` says whether trying again makes sense.
  mutating func fail(reason: String, retryable: Bool) throws {
    guard case .submitting(let key) = state else { throw invalid("fail") }
    state = retryable ? .retryableFailure(key: key, reason: reason) : .terminalFailure(reason: reason)
  }

  /// Tries again after a retryable failure and returns the key to send.
  mutating func retry() throws -> String {
    guard case .retryableFailure(let key, _) = state else { throw invalid("retry") }
    state = .submitting(key: key)
    return key
  }

  /// Clears a finished submission for the next order.
  mutating func reset() throws {
    if case .submitting = state { throw invalid("reset") }
    state = .idle
  }

  private func invalid(_ event: String) -> SubmissionError {
    .invalidTransition(from: state, event: event)
  }
}
