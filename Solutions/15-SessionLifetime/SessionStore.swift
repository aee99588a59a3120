// Chapter 15: A session's lifetime (exercise 1 of 2, reference solution)
//
// Goal: `SessionStore.validToken()` refreshes an expired token once for all
// the callers waiting at that moment, as chapter 09's vault does, and also:
// - the shared refresh is cancelled when the last caller waiting for it
//   leaves, and not before;
// - a refreshed token reaches memory and the keychain only while its session
//   is still the current one: the user may sign out while the server answers;
// - `savedToken` names a token only once the keychain has saved it.
//
// The fixes:
//   1. A flight counts the callers waiting for it. A caller that is cancelled
//      leaves it, and only the last one to leave cancels the refresh; a flight
//      whose callers all left is never joined again, so the next caller
//      starts a new refresh instead of waiting for a cancelled one. The count
//      sits behind a `Mutex` because a cancellation handler runs at once, on
//      the thread of whoever cancels, not on the store.
//   2. After the server's `await`, the flight checks that its session is still
//      the current one before it keeps or saves anything: `signOut()` may have
//      run in between (an actor lets other calls in at every `await`).
//   3. `savedToken` is set only after `keychain.save` returned without an
//      error. A save that fails leaves the token usable in memory and the
//      store knowing that the keychain does not hold it.

import Synchronization

/// An access token.
struct Token: Equatable, Sendable, CustomStringConvertible {
  var value: String
  /// Whether it can still be used; an expired token must be refreshed first.
  var isValid: Bool
  var description: String { "Token(\(value))" }
}

/// The auth server.
protocol AuthServer: Sendable {
  /// Exchanges the refresh token for a new access token.
  func refreshToken() async throws -> Token
}

/// Where the token outlives the app: the system keychain. Its calls are
/// synchronous (as `SecItemAdd` is) and can fail (a locked device, a full disk).
protocol Keychain: Sendable {
  func save(_ token: Token) throws
  func delete()
}

/// Errors of the store.
enum SessionError: Error, Equatable {
  /// The user signed out (or in as someone else) while the token was refreshed.
  case sessionChanged
}

/// Holds the signed-in user's token: refreshes it, saves it, forgets it.
actor SessionStore {
  /// One refresh, the session it belongs to, and how many callers wait for it.
  private final class Flight: Sendable {
    let id: Int
    let session: Int
    let task: Task<Token, any Error>
    /// The callers waiting; `nil` once the last one left and cancelled the refresh.
    private let waiters = Mutex<Int?>(1)

    init(id: Int, session: Int, task: Task<Token, any Error>) {
      self.id = id
      self.session = session
      self.task = task
    }

    /// Counts one more caller in; false when the flight was abandoned.
    func join() -> Bool {
      waiters.withLock { count in
        guard let waiting = count else { return false }
        count = waiting + 1
        return true
      }
    }

    /// Counts a cancelled caller out, and cancels the refresh if it was the last.
    func leave() {
      let last = waiters.withLock { count -> Bool in
        guard let waiting = count else { return false }
        count = waiting == 1 ? nil : waiting - 1
        return waiting == 1
      }
      if last { task.cancel() }
    }
  }

  private let server: any AuthServer
  private let keychain: any Keychain
  private var token: Token?
  /// The token the keychain holds for this session, as far as the store knows.
  private(set) var savedToken: Token?
  private var flight: Flight?
  private var session = 0
  private var nextFlightID = 0

  /// A store starting from the token the keychain gave back at launch, if any.
  init(server: any AuthServer, keychain: any Keychain, token: Token? = nil) {
    self.server = server
    self.keychain = keychain
    self.token = token
    self.savedToken = token
  }

  /// A valid token, refreshed first if needed.
  func validToken() async throws -> Token {
    if let token, token.isValid { return token }
    let flight: Flight
    if let current = self.flight, current.join() {
      flight = current
    } else {
      flight = startFlight()
    }

    let result: Result<Token, any Error>
    do {
      let task = flight.task
      result = .success(
        try await withTaskCancellationHandler {
          try await task.value
        } onCancel: {
          flight.leave()
        })
    } catch {
      result = .failure(error)
    }

    if self.flight?.id == flight.id { self.flight = nil }
    guard flight.session == session else { throw SessionError.sessionChanged }
    return try result.get()
  }

  /// Forgets the token, here and in the keychain, and abandons any refresh
  /// in flight: the user signed out.
  func signOut() {
    session += 1
    token = nil
    savedToken = nil
    keychain.delete()
    flight?.task.cancel()
    flight = nil
  }

  private func startFlight() -> Flight {
    nextFlightID += 1
    let session = self.session
    let flight = Flight(
      id: nextFlightID, session: session, task: Task { try await self.refresh(for: session) })
    self.flight = flight
    return flight
  }

  /// Runs on the store, in the flight's task.
  private func refresh(for session: Int) async throws -> Token {
    let fresh = try await server.refreshToken()
    // Back on the store after an `await`: is this still the same session?
    guard session == self.session else { throw SessionError.sessionChanged }
    token = fresh
    do {
      try keychain.save(fresh)
      savedToken = fresh
    } catch {
      // The token works, but the keychain does not have it: not saved.
    }
    return fresh
  }
}
