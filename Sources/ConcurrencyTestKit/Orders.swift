import CheckTranscript
import Synchronization
import Testing

/// Plays a scenario once per order in which its ready jobs can run, and
/// fails the check with the first order that breaks it.
///
/// One hand-picked order proves one order. A scenario whose tasks run on a
/// ``StepExecutor`` is decided by which ready job runs next each time more
/// than one could; `explore` replays it on a fresh executor and event log
/// per order, depth first, until every order with at most `deviations`
/// choices of a job other than the oldest ready one has run, or `limit`
/// orders have:
///
///     let explored = try await Orders.explore("two callers reserving A") { executor, events in
///       let store = Store(executor: executor, events: events)
///       let callers = (1...2).map { store.reserve("A", caller: $0) }
///       try await store.waitForRemoteCall(0)
///       ...
///       events.expect(store.remote.callCount, equals: 1, "One remote call")
///     }
///     #expect(explored.isComplete)
///
/// Inside `play`, the event log's checks (`expect`, `require`,
/// `withinTimeLimit`, the gates' waits) do not fail the check at once: they
/// end that order. The first order with a failure is reported as the
/// check's failure, its events beginning with the order's number and the
/// choices that made it (the first order, every job as it became ready, is
/// what a check that does not explore plays, and adds nothing). Plain `#expect` inside `play` would fail the check
/// in every order it holds in; use the log's.
///
/// The scenario must be deterministic for a given order: its interleaving
/// comes from the executor, gates and a test clock, never from timing.
public enum Orders {
  /// What an exploration did.
  public struct Exploration: Sendable, Equatable {
    /// How many orders were played.
    public var played: Int
    /// Whether they were all the orders within the deviation bound, not
    /// cut short by the limit.
    public var isComplete: Bool

    public init(played: Int, isComplete: Bool) {
      self.played = played
      self.isComplete = isComplete
    }
  }

  /// Plays `play` once per order (see ``Orders``); returns how many there were.
  @discardableResult
  public static func explore(
    _ description: String,
    upTo limit: Int = 500,
    deviations: Int = 2,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ play: @Sendable (StepExecutor, EventLog) async throws -> Void
  ) async throws -> Exploration {
    var prefix: [Int] = []
    var played = 0
    while played < limit {
      let schedule = Schedule(prefix: prefix)
      let events = EventLog(collectingFailures: true)
      let executor = StepExecutor(events: events, schedule: schedule)
      do {
        try await play(executor, events)
      } catch is CollectedFailure {
        // The log has the failure.
      } catch {
        events.collect(
          failure: Verdict(
            behaviour: "\(description): the scenario threw \(show(error))", events: events.events))
      }
      played += 1
      let taken = schedule.taken
      if let failure = events.collectedFailures.first {
        var verdict = failure
        // The first order runs every job as it became ready, as a check that
        // does not explore would: its events are the whole story. Another
        // order starts with the choices that made it.
        if taken.contains(where: { $0.choice != 0 }) {
          verdict.events.insert(
            .note(
              "order \(played) of \(description), tried one by one: at choice "
                + taken.enumerated().filter { $0.element.choice != 0 }.map {
                  "\($0.offset + 1) ready job \($0.element.choice + 1) of \($0.element.count)"
                }.joined(separator: ", at choice ") + " ran first, not the oldest"),
            at: 0)
        }
        // Recorded once, and thrown as the error Swift Testing does not report again.
        try EventLog.stop(recording: verdict, sourceLocation: sourceLocation)
      }
      guard let next = nextPrefix(after: taken, deviations: deviations) else {
        return Exploration(played: played, isComplete: true)
      }
      prefix = next
    }
    return Exploration(played: played, isComplete: false)
  }

  /// The choices of the next order, depth first: the last choice point that
  /// has a job left to try, within the deviation bound; nil when none has.
  static func nextPrefix(after taken: [Schedule.Choice], deviations: Int) -> [Int]? {
    var index = taken.count - 1
    while index >= 0 {
      let point = taken[index]
      let before = taken[..<index].filter { $0.choice != 0 }.count
      if point.choice + 1 < point.count, before + 1 <= deviations {
        return taken[..<index].map(\.choice) + [point.choice + 1]
      }
      index -= 1
    }
    return nil
  }
}

/// Which ready job a ``StepExecutor`` runs next: the ones a prefix names,
/// then always the oldest, remembering every choice and how many there were.
final class Schedule: Sendable {
  struct Choice: Sendable, Equatable {
    var choice: Int
    var count: Int
  }

  private let state: Mutex<(prefix: [Int], taken: [Choice])>

  init(prefix: [Int]) {
    state = Mutex((prefix, []))
  }

  /// The index of the job to run among `count` ready ones.
  func choose(among count: Int) -> Int {
    guard count > 1 else { return 0 }
    return state.withLock { state in
      let position = state.taken.count
      let choice = position < state.prefix.count ? min(state.prefix[position], count - 1) : 0
      state.taken.append(Choice(choice: choice, count: count))
      return choice
    }
  }

  /// Every choice made so far, in order.
  var taken: [Choice] { state.withLock { $0.taken } }
}

/// Ends one order of an exploration; the log holds why.
struct CollectedFailure: Error {}
