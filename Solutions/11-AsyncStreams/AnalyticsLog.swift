// Chapter 11: Async streams, the analytics log (reference solution)
//
// Goal: `AnalyticsLog` collects the app's analytics events and
// `AnalyticsUploader` sends them to the collector. Unlike the location feed,
// this log must never lose an event, even while the uploader is stuck on a
// slow network. The uploader sends events one at a time, in the order they
// were recorded; cancelling it cancels the send in flight; once the log is
// closed, the uploader sends what is left and returns.
//
// The fixes:
// 1. `.unbounded`: the opposite decision to the location feed, on purpose.
//    Nothing may be dropped, so the buffer grows while the uploader is
//    behind. That is the price: an in-memory stream has no back-pressure, and
//    a log that must survive a crash or an endless backlog needs a bound and
//    a disk, not a bigger buffer.
// 2. `close()` finishes the stream: the uploader still gets every buffered
//    event, then its loop ends.
// 3. The uploader awaits each send inside its loop. The loop asks for the
//    next event only when the last send has finished, so sends never overlap
//    and keep their order, `run` returns after the last one, and the sends
//    are part of `run`'s task: cancelling it cancels them.

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
    // Fix 1: never drop an event.
    (events, continuation) = AsyncStream.makeStream(of: AnalyticsEvent.self, bufferingPolicy: .unbounded)
  }

  /// Records one event; it never waits.
  func record(_ event: AnalyticsEvent) {
    continuation.yield(event)
  }

  /// No more events: the uploader sends what is left, then returns.
  func close() {
    // Fix 2: the consumer drains the buffer, then its loop ends.
    continuation.finish()
  }
}

/// Sends the log's events to the collector.
struct AnalyticsUploader: Sendable {
  let collector: any AnalyticsCollector

  /// Sends every event of `events`, one at a time and in order, and returns
  /// when the stream ends or the calling task is cancelled.
  func run(_ events: AsyncStream<AnalyticsEvent>) async {
    for await event in events {
      // Fix 3: one send at a time, in this task.
      do {
        try await collector.send(event)
      } catch {
        return  // Cancelled: stop here.
      }
    }
  }
}
