import CheckTranscript
import Synchronization
import Testing

/// A task executor that runs jobs only when the test tells it to.
///
/// Tasks started with ``spawn(_:_:)`` prefer this executor (SE-0417), and so do
/// the default actors, `async let`s, task-group children and nonisolated async
/// functions they call. Nothing runs until the test calls ``runUntilIdle()``,
/// which runs ready jobs one at a time, in order, until every task is either
/// finished or suspended waiting for something outside (a gate, a clock).
/// After it returns, the test knows exactly where every task stands:
///
///     let first = executor.spawn("reserve A #1") { try await inventory.reserve("A") }
///     let second = executor.spawn("reserve A #2") { try await inventory.reserve("A") }
///     executor.runUntilIdle()
///     // both reservations have gone as far as they can: count the remote calls now
///
/// What does not run here: `Task {}`, `Task.detached`, `@MainActor` code and
/// actors with custom executors. Tasks still suspended when a check ends are
/// simply never run again: fine in a test process, which ends soon after.
public final class StepExecutor: TaskExecutor, Sendable {
  private let jobs = Mutex<[UnownedJob]>([])
  /// Counts enqueued jobs, so ``run(until:_:sourceLocation:)`` can wait for more.
  private let enqueued = WaitableState(0)
  private let events: EventLog?
  /// Which ready job runs next, when ``Orders/explore(_:upTo:deviations:sourceLocation:_:)``
  /// plays a scenario; otherwise the oldest.
  private let schedule: Schedule?

  /// Creates an idle executor; with `events`, spawned tasks log how they end.
  public init(events: EventLog? = nil) {
    self.events = events
    self.schedule = nil
  }

  init(events: EventLog, schedule: Schedule) {
    self.events = events
    self.schedule = schedule
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
    enqueued.update { $0 += 1 }
  }

  /// Starts `operation` in a new task that runs on this executor, at
  /// `priority` when given (else the caller's, as `Task { }` would).
  ///
  /// The task makes no progress until ``runUntilIdle()`` is called. When it
  /// ends, the log records its result as the learner's code answering
  /// `answering` (by default, whoever called it last).
  public func spawn<Value: Sendable>(
    _ name: String,
    priority: TaskPriority? = nil,
    answering: RecordedEvent.Lane = .whoeverCalled,
    _ operation: @escaping @Sendable () async throws -> Value
  ) -> Spawned<Value> {
    let spawned = Spawned<Value>(name: name)
    let events = self.events
    spawned.task = Task(executorPreference: self, priority: priority) {
      let result: Result<Value, any Error>
      do { result = .success(try await operation()) } catch { result = .failure(error) }
      switch result {
      case .success(let value):
        events?.record(.answer("\(name) finished: \(show(value))", to: answering, label: show(value)))
      case .failure(let error):
        events?.record(.answer("\(name) threw \(show(error))", to: answering, label: "threw " + show(error)))
      }
      spawned.finish(result)
    }
    return spawned
  }

  /// Runs ready jobs until none is left and returns how many ran.
  ///
  /// Stops after `limit` jobs, a sign of code that keeps scheduling work forever.
  @discardableResult
  public func runUntilIdle(limit: Int = 100_000) -> Int {
    var count = 0
    while count < limit,
      let job = jobs.withLock({ jobs -> UnownedJob? in
        guard !jobs.isEmpty else { return nil }
        return jobs.remove(at: schedule?.choose(among: jobs.count) ?? 0)
      })
    {
      job.runSynchronously(on: asUnownedTaskExecutor())
      count += 1
    }
    return count
  }
}

extension StepExecutor {
  /// Runs jobs until `condition` holds, also waiting for jobs that arrive from
  /// other executors (a `Task {}` the code under test started, say).
  ///
  /// Fails the check if `condition` still does not hold after the hang bound.
  public func run(
    until condition: @Sendable () -> Bool,
    _ description: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let deadline = ContinuousClock.now + hangBound
    while true {
      let seen = enqueued.current
      runUntilIdle()
      if condition() { return }
      do {
        // A job for this executor wakes the wait at once. What happens on
        // another executor (a `Task {}` the code under test started) enqueues
        // nothing here, so the condition is looked at again every few
        // milliseconds too: the check then sees that call, instead of saying
        // it never came above an event log in which it did.
        try await enqueued.wait(until: { $0 > seen }, limit: .milliseconds(5))
      } catch is WaitTimedOut {
        if condition() { return }
        guard ContinuousClock.now < deadline else {
          try (events ?? EventLog()).stop(
            "Expected \(description) within \(hangBound.formatted).",
            actual: "still not the case: every task is waiting for something that never happens",
            sourceLocation: sourceLocation)
        }
      }
    }
  }
}

/// A task started by ``StepExecutor/spawn(_:_:)`` whose outcome the test can
/// read without awaiting it.
///
/// Reading it never runs the task: between two ``StepExecutor/runUntilIdle()``
/// calls its outcome is a fact, so a check can say "still waiting" as surely
/// as "finished":
///
///     let executor = StepExecutor()
///     let screen = executor.spawn("the screen") {
///       var shown = 0
///       for try await _ in locationUpdates(from: provider) { shown += 1 }
///       return shown
///     }
///     executor.runUntilIdle()
///     #expect(!screen.isFinished)  // Parked in the stream's next().
///     screen.cancel()
///     try await executor.run(until: { screen.isFinished }, "the screen's loop to end")
///     #expect(screen.value == 0)  // The loop ended, having shown nothing.
public final class Spawned<Value: Sendable>: Sendable {
  /// The name used in the event log.
  public let name: String
  private let state = Mutex<(result: Result<Value, any Error>?, task: Task<Void, Never>?)>((nil, nil))

  init(name: String) {
    self.name = name
  }

  var task: Task<Void, Never>? {
    get { state.withLock { $0.task } }
    set { state.withLock { $0.task = newValue } }
  }

  fileprivate func finish(_ result: Result<Value, any Error>) {
    state.withLock { $0.result = result }
  }

  /// The outcome, or `nil` while the task is still running or suspended.
  public var result: Result<Value, any Error>? {
    state.withLock { $0.result }
  }

  /// Whether the task has finished.
  public var isFinished: Bool {
    result != nil
  }

  /// The value, or `nil` if the task threw or has not finished.
  public var value: Value? {
    try? result?.get()
  }

  /// The error, or `nil` if the task returned or has not finished.
  public var error: (any Error)? {
    guard case .failure(let error) = result else { return nil }
    return error
  }

  /// Cancels the task.
  public func cancel() {
    task?.cancel()
  }
}
