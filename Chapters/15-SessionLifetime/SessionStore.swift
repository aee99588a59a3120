// Chapter 15: A session's lifetime (exercise 1 of 2)
//
// Goal: `SessionStore.validToken()` refreshes an expired token once for all
// the callers waiting at that moment, as chapter 09's vault does, and also:
// - the shared refresh is cancelled when the last caller waiting for it
//   leaves, and not before;
// - a refreshed token reaches memory and the keychain only while its session
//   is still the current one: the user may sign out while the server answers;
// - `savedToken` names a token only once the keychain has saved it.
//
// Run `swift run workshop check 15` to see which behaviours still fail.

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
  private struct Flight {
    var id: Int
    var session: Int
    var task: Task<Token, any Error>
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
    let flight = self.flight ?? startFlight()

    let result: Result<Token, any Error>
    do {
      let task = flight.task
      // TODO: One screen that goes away cancels the refresh every other
      // screen is waiting for.
      result = .success(
        try await withTaskCancellationHandler {
          try await task.value
        } onCancel: {
          task.cancel()
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
    // TODO: The user may have signed out while the server was answering.
    token = fresh
    // TODO: Marked saved before the keychain said so, and its error dropped.
    savedToken = fresh
    try? keychain.save(fresh)
    return fresh
  }
}
