// Chapter 11: Async streams, the location feed (reference solution)
//
// Goal: `locationUpdates(from:)` turns the location provider's delegate
// callbacks into an `AsyncThrowingStream` the run-tracking screen loops over.
// The screen only ever wants the newest fix: a consumer that falls behind
// gets the latest one, never a backlog. When the consumer leaves (it breaks
// out of its loop, or its task is cancelled) the provider's updates stop, once.
// When the provider stops by itself, the loop ends; when it fails, the loop
// throws its error.
//
// The fixes:
// 1. `.bufferingNewest(1)`: the buffer holds one fix, and a new one replaces
//    it (`yield` returns `.dropped(old)`). That is a product decision: a
//    position is worth nothing once a newer one exists.
// 2. `onTermination` stops the provider. The stream calls it exactly once,
//    whatever ended it: the consumer breaking out of its loop (the iterator
//    goes away), its task being cancelled, or `finish`. It is the only place
//    that hears about all three.
// 3. `finish()` / `finish(throwing:)` when the provider stops by itself: the
//    loop ends after the last buffered fix, or throws the error once.

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
  // Fix 1: keep only the newest fix.
  AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
    // Fix 2: set first, so that the handler is in place whatever happens
    // inside startUpdates. The stream calls it once, on whichever thread
    // ended it.
    continuation.onTermination = { _ in provider.stopUpdates() }
    provider.startUpdates(delegate: StreamDelegate(continuation: continuation))
  }
}

/// Forwards the provider's callbacks into the stream.
struct StreamDelegate: LocationProviderDelegate {
  let continuation: AsyncThrowingStream<Location, any Error>.Continuation

  func provider(didUpdate location: Location) -> FixDelivery {
    continuation.yield(location)
  }

  func provider(didStopWith error: LocationError?) {
    // Fix 3: end the stream; buffered fixes are still delivered first.
    if let error {
      continuation.finish(throwing: error)
    } else {
      continuation.finish()
    }
  }
}
