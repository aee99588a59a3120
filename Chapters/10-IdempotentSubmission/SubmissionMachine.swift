// Chapter 10: Idempotent submission (exercise 1 of 2)
//
// Goal: `SubmissionMachine` is the one place that decides where a submission
// may go next. It rejects every transition that makes no sense (succeeding
// while idle, starting again while submitting, retrying a final failure) with
// `SubmissionError.invalidTransition`, and a retry keeps the original key.
//
// Run `swift run workshop check 10` to see which behaviours still fail.

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
    // TODO: Allowed from idle only. A second tap while submitting lands here.
    state = .submitting(key: key)
  }

  /// The server placed the order.
  mutating func succeed(_ receipt: Receipt) throws {
    // TODO: Only a submission in flight can succeed.
    state = .succeeded(receipt)
  }

  /// The attempt failed; `retryable` says whether trying again makes sense.
  mutating func fail(reason: String, retryable: Bool) throws {
    // TODO: Only a submission in flight can fail.
    if retryable, case .submitting(let key) = state {
      state = .retryableFailure(key: key, reason: reason)
    } else {
      state = .terminalFailure(reason: reason)
    }
  }

  /// Tries again after a retryable failure and returns the key to send.
  mutating func retry() throws -> String {
    guard case .retryableFailure(let key, _) = state else {
      throw SubmissionError.invalidTransition(from: state, event: "retry")
    }
    state = .submitting(key: key)
    return key
  }

  /// Clears a finished submission for the next order.
  mutating func reset() throws {
    // TODO: Not while a submission is in flight.
    state = .idle
  }
}
