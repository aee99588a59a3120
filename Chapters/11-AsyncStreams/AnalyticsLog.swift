// Chapter 11: Async streams (the analytics log)
//
// Goal: `AnalyticsLog` collects the app's analytics events and
// `AnalyticsUploader` sends them to the collector. Unlike the location feed,
// this log must never lose an event, even while the uploader is stuck on a
// slow network. The uploader sends events one at a time, in the order they
// were recorded; cancelling it cancels the send in flight; once the log is
// closed, the uploader sends what is left and returns.
//
// Run `swift run workshop check 11` to see which behaviours still fail.

/// Something the user did that the product team wants to count.
struct AnalyticsEvent: Equatable, Sendable, CustomStringConvertible {
  var name: String
  var description: String { name }
}

/// The analytics backend.
protocol AnalyticsCollector: Sendable {
  /// Sends one event. Throws only `CancellationError`, when the calling task
  /// is cancelled (the network layer retries everything else by itself).
  func send(_ event: AnalyticsEvent) async throws
}

/// Where the app records events; the uploader reads them from `events`.
final class AnalyticsLog: Sendable {
  /// Every recorded event, in order, for one uploader.
  let events: AsyncStream<AnalyticsEvent>
  private let continuation: AsyncStream<AnalyticsEvent>.Continuation

  init() {
    // TODO: Copied from the location feed. A "newest only" buffer is right
    // for positions and wrong here: every event that arrives while the
    // uploader is busy replaces the one before it.
    (events, continuation) = AsyncStream.makeStream(
      of: AnalyticsEvent.self, bufferingPolicy: .bufferingNewest(1))
  }

  /// Records one event; it never waits.
  func record(_ event: AnalyticsEvent) {
    continuation.yield(event)
  }

  /// No more events: the uploader sends what is left, then returns.
  func close() {
    // TODO: The stream is never told, so the uploader never returns.
  }
}

/// Sends the log's events to the collector.
struct AnalyticsUploader: Sendable {
  let collector: any AnalyticsCollector

  /// Sends every event of `events`, one at a time and in order, and returns
  /// when the stream ends or the calling task is cancelled.
  func run(_ events: AsyncStream<AnalyticsEvent>) async {
    for await event in events {
      // TODO: A new task per event. The sends overlap and can land in any
      // order, `run` returns before they finish, and cancelling `run`
      // cancels none of them.
      Task {
        try? await collector.send(event)
      }
    }
  }
}
