// Chapter 09: Single-flight (exercise 1 of 2, reference solution)
//
// Goal: `TokenVault.validToken()` refreshes an expired token once, however many
// callers ask at the same time, and every caller gets that one new token. A
// caller that gives up does not cancel the refresh for the others. Signing out
// during a refresh throws its result away: its waiters get
// `SessionError.sessionChanged`, and the next call refreshes anew. A failed
// refresh reaches every waiter, and the next call tries again.
//
// The fixes:
//   1. One flight: the refresh runs in an unstructured task that the vault
//      stores before its first `await`; later callers await the same task.
//      No caller owns it, so no caller's cancellation cancels it.
//   2. Each flight has an identity. Only the flight that is still current may
//      store its token or clear itself: an old flight finishing after a
//      sign-out never touches a newer one.
//   3. A session number, bumped by `signOut()`: a flight from an older
//      session delivers `SessionError.sessionChanged` instead of its token.

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

/// Errors of the vault.
enum SessionError: Error, Equatable {
  /// The user signed out (or in as someone else) while the token was refreshed.
  case sessionChanged
}

/// Holds the access token and refreshes it when it has expired.
actor TokenVault {
  private struct Flight {
    var id: Int
    var session: Int
    var task: Task<Token, any Error>
  }

  private let server: any AuthServer
  private var token: Token?
  private var flight: Flight?
  private var session = 0
  private var nextFlightID = 0

  init(server: any AuthServer, token: Token? = nil) {
    self.server = server
    self.token = token
  }

  /// A valid token, refreshed first if needed.
  func validToken() async throws -> Token {
    if let token, token.isValid { return token }
    let flight = self.flight ?? startFlight()

    let result: Result<Token, any Error>
    do {
      result = .success(try await flight.task.value)
    } catch {
      result = .failure(error)
    }

    // After the `await`: is this flight still the current one?
    if self.flight?.id == flight.id {
      self.flight = nil
      if case .success(let fresh) = result { token = fresh }
    }
    guard flight.session == session else { throw SessionError.sessionChanged }
    return try result.get()
  }

  /// Forgets the token and abandons any refresh in flight: the user signed out.
  func signOut() {
    session += 1
    token = nil
    flight?.task.cancel()
    flight = nil
  }

  private func startFlight() -> Flight {
    let server = self.server
    // The task's closure uses `server`, not `self`, so the task is not
    // isolated to the vault: a `Task {}` created in an actor method inherits
    // the actor only when its closure captures `self`. The refresh runs off
    // the actor and cannot touch `token`, `flight` or `session`: only the
    // waiters, back on the actor after their `await`, decide what to store.
    nextFlightID += 1
    let flight = Flight(
      id: nextFlightID, session: session, task: Task { try await server.refreshToken() })
    self.flight = flight
    return flight
  }
}
