// Chapter 11: Async streams (the location feed)
//
// Goal: `locationUpdates(from:)` turns the location provider's delegate
// callbacks into an `AsyncThrowingStream` the run-tracking screen loops over.
// The screen only ever wants the newest fix: a consumer that falls behind
// gets the latest one, never a backlog. When the consumer leaves (it breaks
// out of its loop, or its task is cancelled) the provider's updates stop, once.
// When the provider stops by itself, the loop ends; when it fails, the loop
// throws its error.
//
// Run `swift run workshop check 11` to see which behaviours still fail.

/// One position fix from the location provider.
struct Location: Equatable, Sendable, CustomStringConvertible {
  var latitude: Double
  var longitude: Double
  var description: String { "(\(latitude), \(longitude))" }
}

/// Why the provider stopped without being asked to.
enum LocationError: Error, Equatable {
  /// The user took back the app's location permission.
  case permissionRevoked
  /// The hardware gave up (no signal for too long, say).
  case unavailable
}

/// What became of one fix handed to the stream: kept (`.enqueued`), kept or
/// not at the price of another (`.dropped(fix)`: the fix that was thrown
/// away, which depends on the policy), or refused because nobody listens any
/// more (`.terminated`).
typealias FixDelivery = AsyncThrowingStream<Location, any Error>.Continuation.YieldResult

/// The app's side of the provider: it calls these on a thread of its own.
protocol LocationProviderDelegate: Sendable {
  /// A new fix. Returns what the app did with it: the provider's battery
  /// report counts fixes the app dropped, and `.terminated` means nobody
  /// listens any more.
  func provider(didUpdate location: Location) -> FixDelivery

  /// The provider stopped by itself: the user switched location off (`nil`)
  /// or it failed. No more fixes follow.
  func provider(didStopWith error: LocationError?)
}

/// The location hardware. Updates run, and drain the battery, from
/// `startUpdates(delegate:)` until `stopUpdates()`.
protocol LocationProvider: Sendable {
  func startUpdates(delegate: any LocationProviderDelegate)
  func stopUpdates()
}

/// The fixes of `provider`, newest first when the consumer falls behind.
func locationUpdates(from provider: any LocationProvider) -> AsyncThrowingStream<Location, any Error> {
  // TODO: The default buffer keeps every fix. A consumer that falls behind
  // works through a backlog of stale positions instead of the newest one.
  AsyncThrowingStream { continuation in
    provider.startUpdates(delegate: StreamDelegate(continuation: continuation))
    // TODO: Nothing stops the provider when the consumer leaves: the GPS
    // keeps running, and draining the battery, for a screen that is gone.
  }
}

/// Forwards the provider's callbacks into the stream.
struct StreamDelegate: LocationProviderDelegate {
  let continuation: AsyncThrowingStream<Location, any Error>.Continuation

  func provider(didUpdate location: Location) -> FixDelivery {
    continuation.yield(location)
  }

  func provider(didStopWith error: LocationError?) {
    // TODO: The provider has stopped, but the stream is never told: the
    // consumer's loop waits forever, and a failure never reaches it.
  }
}
