// Chapter 08: Actor reentrancy (exercise 1 of 2)
//
// Goal: `Inventory.reserve(_:)` reserves an item on the remote service once,
// however many callers ask for it at the same time; a failed reservation
// leaves nothing behind and every caller waiting for it gets the error;
// different items are still reserved in parallel.
//
// Run `swift run workshop check 08` to see which behaviours still fail.

/// The remote stock service. Every call costs a round trip and holds stock.
protocol RemoteInventory: Sendable {
  /// Reserves one unit of `itemID` on the server, or throws.
  func reserve(_ itemID: String) async throws
}

/// The app's view of what it has reserved, shared by every screen.
actor Inventory {
  private let remote: any RemoteInventory
  private var reserved: Set<String> = []

  init(remote: any RemoteInventory) {
    self.remote = remote
  }

  /// Reserves `itemID` unless it is reserved already.
  ///
  /// Callers that ask for the same item at the same time share one remote call
  /// and all get its outcome.
  func reserve(_ itemID: String) async throws {
    // TODO: This check is only true until the first `await` below. While this
    // call waits for the server, the actor runs other calls, and they see the
    // same old state.
    if reserved.contains(itemID) { return }

    try await remote.reserve(itemID)

    // TODO: Callers of the same item that arrived meanwhile must share this
    // outcome, success or failure, without a second remote call.
    reserved.insert(itemID)
  }

  /// Whether `itemID` is reserved.
  func isReserved(_ itemID: String) -> Bool {
    reserved.contains(itemID)
  }
}
