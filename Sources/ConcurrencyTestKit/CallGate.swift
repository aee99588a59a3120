import CheckTranscript
import Testing

/// A controllable stand-in for one async call of a fake service.
///
/// Every call suspends at the gate until the test answers it, so the test, not
/// the scheduler, decides the order in which calls finish:
///
///     let search = CallGate<String, [String]>("search", events: events)
///     // in the fake:   func search(_ q: String) async throws -> [String] { try await search.call(q) }
///     // in the check:
///     let query = try await search.waitForCall(0)    // the first call has arrived
///     search.succeed(0, with: ["Swift Book"])         // ...and now it returns
///
/// A caller that is cancelled while it waits gets `CancellationError` at once,
/// like a well-behaved network client. Create the gate with
/// `ignoresCancellation: true` to model a service that keeps going and answers
/// late anyway; the gate still records that the caller was cancelled.
public final class CallGate<Argument: Sendable, Output: Sendable>: Sendable {
  private enum Status: Sendable {
    case waiting(CheckedContinuation<Output, any Error>)
    case ended
  }

  private struct Call: Sendable {
    var id: Int
    var argument: Argument
    var status: Status
    var callerCancelled = false
  }

  /// What a cancellation found, decided under the lock and acted on after it.
  private enum CancelOutcome {
    case notArrived, noLongerWaiting
    case keptWaiting(Argument)
    case cancelled(Argument, CheckedContinuation<Output, any Error>)
  }

  /// What an answer found, decided under the lock and acted on after it.
  private enum AnswerOutcome {
    case unknownCall
    case alreadyEnded(Argument)
    case answer(Argument, late: Bool, CheckedContinuation<Output, any Error>)
  }

  private struct State: Sendable {
    var calls: [Call] = []
    var cancelledEarly: Set<Int> = []
    var nextID = 0
  }

  private let name: String
  private let events: EventLog
  private let ignoresCancellation: Bool
  private let state = WaitableState(State())

  /// Creates a gate whose calls are logged as `name(argument)` in `events`.
  public init(_ name: String, events: EventLog, ignoresCancellation: Bool = false) {
    self.name = name
    self.events = events
    self.ignoresCancellation = ignoresCancellation
  }

  // MARK: - The fake's side

  /// Records the call, then suspends until the test answers it.
  public func call(_ argument: Argument) async throws -> Output {
    let id = state.update { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output, any Error>) in
        // Logged before the call becomes visible, so the log shows the arrival
        // before anything a check does once it sees it. (Never log under the
        // gate's lock: the log has a lock of its own.)
        let cancelledEarly = state.current.cancelledEarly.contains(id)
        let call = label(argument)
        events.record(
          .call(call + " called" + (cancelledEarly ? " by a cancelled task" : ""), to: lane, label: call)
            .wrong(cancelledEarly))
        let endNow = state.update { state -> Bool in
          let cancelled = state.cancelledEarly.remove(id) != nil
          let endNow = cancelled && !ignoresCancellation
          state.calls.append(
            Call(
              id: id, argument: argument, status: endNow ? .ended : .waiting(continuation),
              callerCancelled: cancelled))
          return endNow
        }
        if endNow { continuation.resume(throwing: CancellationError()) }
      }
    } onCancel: {
      let outcome = state.update { state -> CancelOutcome in
        guard let index = state.calls.firstIndex(where: { $0.id == id }) else {
          state.cancelledEarly.insert(id)
          return .notArrived
        }
        state.calls[index].callerCancelled = true
        let call = state.calls[index]
        guard case .waiting(let continuation) = call.status else { return .noLongerWaiting }
        if ignoresCancellation { return .keptWaiting(call.argument) }
        state.calls[index].status = .ended
        return .cancelled(call.argument, continuation)
      }
      switch outcome {
      case .notArrived, .noLongerWaiting:
        break
      case .keptWaiting(let argument):
        events.record(
          .note(
            "\(label(argument)) ignored cancellation and keeps going", in: lane,
            label: "ignored cancellation and keeps going"))
      case .cancelled(let argument, let continuation):
        events.record(
          .cancel("\(label(argument)) cancelled", from: .code, to: lane, label: "cancel \(label(argument))"))
        continuation.resume(throwing: CancellationError())
      }
    }
  }

  // MARK: - The test's side

  /// The arguments of every call so far, in arrival order.
  public var arguments: [Argument] {
    state.current.calls.map(\.argument)
  }

  /// How many calls have arrived so far.
  public var callCount: Int {
    state.current.calls.count
  }

  /// The indices of the calls still suspended, waiting for an answer, oldest first.
  public var waitingCalls: [Int] {
    state.current.calls.indices.filter { index in
      if case .waiting = state.current.calls[index].status { return true }
      return false
    }
  }

  /// Whether the task that made call `index` (0-based) has been cancelled.
  public func wasCancelled(_ index: Int) -> Bool {
    let calls = state.current.calls
    return calls.indices.contains(index) && calls[index].callerCancelled
  }

  /// Whether call `index` is still suspended, waiting for an answer.
  public func isWaiting(_ index: Int) -> Bool {
    let calls = state.current.calls
    guard calls.indices.contains(index), case .waiting = calls[index].status else { return false }
    return true
  }

  /// Suspends until call `index` (0-based) has arrived and returns its argument.
  ///
  /// Fails the check if it does not arrive within the hang bound.
  @discardableResult
  public func waitForCall(
    _ index: Int,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Argument {
    do {
      try await state.wait(until: { $0.calls.count > index })
    } catch is WaitTimedOut {
      let which = index == 0 ? "a call" : "call \(index + 1)"
      try events.stop(
        "Expected \(which) to \(name) within \(hangBound.formatted).",
        actual: callCount == 0 ? "\(name) was never called" : "only \(callCount) call(s) arrived",
        sourceLocation: sourceLocation)
    }
    return state.current.calls[index].argument
  }

  /// Suspends until the caller of call `index` has been cancelled.
  public func waitForCancellation(
    of index: Int,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    do {
      try await state.wait(until: { $0.calls.indices.contains(index) && $0.calls[index].callerCancelled })
    } catch is WaitTimedOut {
      try events.stop(
        "Expected the caller of call \(index + 1) to \(name) to be cancelled within \(hangBound.formatted).",
        actual: "it was never cancelled", sourceLocation: sourceLocation)
    }
  }

  /// Makes call `index` return `output`.
  public func succeed(_ index: Int, with output: Output, sourceLocation: SourceLocation = #_sourceLocation) {
    answer(index, with: .success(output), sourceLocation: sourceLocation)
  }

  /// Makes call `index` throw `error`.
  public func fail(_ index: Int, with error: any Error, sourceLocation: SourceLocation = #_sourceLocation) {
    answer(index, with: .failure(error), sourceLocation: sourceLocation)
  }

  /// Makes call `index` finish with `result`.
  public func answer(
    _ index: Int,
    with result: Result<Output, any Error>,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let outcome = state.update { state -> AnswerOutcome in
      guard state.calls.indices.contains(index) else { return .unknownCall }
      let call = state.calls[index]
      guard case .waiting(let continuation) = call.status else { return .alreadyEnded(call.argument) }
      state.calls[index].status = .ended
      return .answer(call.argument, late: call.callerCancelled, continuation)
    }
    switch outcome {
    case .unknownCall:
      Issue.record(
        "Test bug: answered call \(index + 1) to \(name), but only \(callCount) call(s) arrived.",
        sourceLocation: sourceLocation)
    case .alreadyEnded(let argument):
      events.record(
        .note(
          "\(label(argument)) had already ended; its answer is dropped", in: lane,
          label: "had already ended; its answer is dropped"))
    case .answer(let argument, let late, let continuation):
      // An answer that comes after its caller was cancelled should not be used.
      let note = late ? " (late: its caller was cancelled)" : ""
      let value =
        switch result {
        case .success(let output): show(output)
        case .failure(let error): "threw " + show(error)
        }
      let verb = if case .success = result { " returned " } else { " " }
      events.record(
        .answer(label(argument) + verb + value + note, from: lane, to: .code, label: value).wrong(late))
      continuation.resume(with: result)
    }
  }

  /// The service's lane: `store` for a gate named `store.save`.
  private var lane: RecordedEvent.Lane {
    let parts = name.split(separator: ".")
    return .service(parts.count > 1 ? parts.dropLast().joined(separator: ".") : name)
  }

  private func label(_ argument: Argument) -> String {
    Argument.self == Void.self ? "\(name)()" : "\(name)(\(show(argument)))"
  }
}
