// Chapter 08: Actor reentrancy (exercise 1 of 2, reference solution)
//
// Goal: `Inventory.reserve(_:)` reserves an item on the remote service once,
// however many callers ask for it at the same time; a failed reservation
// leaves nothing behind and every caller waiting for it gets the error;
// different items are still reserved in parallel.
//
// The fix: the actor records the *reservation in flight*, not just the
// finished ones. The state is written before the first `await`, so a call that
// enters while the first one waits sees it and joins instead of calling the
// server again. The flight is removed when it ends, success or failure, so a
// failure leaves nothing behind and the next call tries again.

/// The remote stock service. Every call costs a round trip and holds stock.
protocol RemoteInventory: Sendable {
  /// Reserves one unit of `itemID` on the server, or throws.
  func reserve(_ itemID: String) async throws
}

/// The app's view of what it has reserved, shared by every screen.
actor Inventory {
  private let remote: any RemoteInventory
  private var reserved: Set<String> = []
  /// Reservations waiting for the server, one task per item.
  private var inFlight: [String: Task<Void, any Error>] = [:]

  init(remote: any RemoteInventory) {
    self.remote = remote
  }

  /// Reserves `itemID` unless it is reserved already.
  ///
  /// Callers that ask for the same item at the same time share one remote call
  /// and all get its outcome.
  func reserve(_ itemID: String) async throws {
    if reserved.contains(itemID) { return }

    // Somebody is already reserving this item: wait for their outcome.
    if let flight = inFlight[itemID] {
      return try await flight.value
    }

    // Claim the item *before* the first suspension point.
    let remote = self.remote
    // This closure does not use `self`, so the task is not isolated to the
    // actor: a `Task {}` created in an actor method inherits the actor only
    // when its closure captures `self`. The flight runs off the actor, needs
    // no turn on it to start or to finish, and cannot touch `inFlight` or
    // `reserved`. Mention `self` in it, and it would run on the actor.
    let flight = Task { try await remote.reserve(itemID) }
    inFlight[itemID] = flight

    // After the `await`, re-check nothing from before it: just record the
    // outcome of our own flight.
    do {
      try await flight.value
      inFlight[itemID] = nil
      reserved.insert(itemID)
    } catch {
      inFlight[itemID] = nil
      throw error
    }
  }

  /// Whether `itemID` is reserved.
  func isReserved(_ itemID: String) -> Bool {
    reserved.contains(itemID)
  }
}
