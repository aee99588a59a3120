// Chapter 09: Single-flight (exercise 1 of 2)
//
// Goal: `TokenVault.validToken()` refreshes an expired token once, however many
// callers ask at the same time, and every caller gets that one new token. A
// caller that gives up does not cancel the refresh for the others. Signing out
// during a refresh throws its result away: its waiters get
// `SessionError.sessionChanged`, and the next call refreshes anew. A failed
// refresh reaches every waiter, and the next call tries again.
//
// Run `swift run workshop check 09` to see which behaviours still fail.

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
  private let server: any AuthServer
  private var token: Token?

  init(server: any AuthServer, token: Token? = nil) {
    self.server = server
    self.token = token
  }

  /// A valid token, refreshed first if needed.
  func validToken() async throws -> Token {
    if let token, token.isValid { return token }
    // TODO: Every caller that finds an expired token starts its own refresh.
    // Ten requests at once, ten refreshes: the server revokes all but one.
    let fresh = try await server.refreshToken()
    // TODO: The user may have signed out while this refresh was running.
    token = fresh
    return fresh
  }

  /// Forgets the token: the user signed out.
  func signOut() {
    token = nil
  }
}
