import ConcurrencyTestKit
import Synchronization
import Testing

@testable import SessionLifetime

struct ServerDown: Error, CustomStringConvertible {
  var description: String { "ServerDown" }
}

// MARK: - Fakes

private final class FakeAuthServer: AuthServer {
  let gate: CallGate<Void, Token>
  init(gate: CallGate<Void, Token>) { self.gate = gate }
  func refreshToken() async throws -> Token { try await gate.call(()) }
}

/// A keychain that records what it is asked, and fails its saves when told to.
private final class FakeKeychain: Keychain {
  struct DiskFull: Error, CustomStringConvertible {
    var description: String { "DiskFull" }
  }
  private let events: EventLog
  private let state = Mutex<(saved: [Token], deletes: Int, failing: Bool)>(([], 0, false))

  init(events: EventLog, failing: Bool = false) {
    self.events = events
    state.withLock { $0.failing = failing }
  }

  func save(_ token: Token) throws {
    let failing = state.withLock { state in
      if !state.failing { state.saved.append(token) }
      return state.failing
    }
    events.record(
      .call(
        "keychain.save(\(token))" + (failing ? " fails: DiskFull" : ""), to: .service("keychain"),
        label: "save(\(token))" + (failing ? " fails" : "")))
    if failing { throw DiskFull() }
  }

  func delete() {
    state.withLock { $0.deletes += 1 }
    events.record(.call("keychain.delete()", to: .service("keychain"), label: "delete()"))
  }

  /// The tokens it saved, in order.
  var saved: [Token] { state.withLock { $0.saved } }
}

private let expired = Token(value: "old", isValid: false)
private func fresh(_ n: Int) -> Token { Token(value: "fresh-\(n)", isValid: true) }

/// A store whose callers run only when the check says so.
private struct Store {
  let events: EventLog
  let executor: StepExecutor
  let refresh: CallGate<Void, Token>
  let keychain: FakeKeychain
  let store: SessionStore

  init(
    token: Token? = expired, serverIgnoresCancellation: Bool = false, keychainFails: Bool = false,
    executor: StepExecutor? = nil, events: EventLog = EventLog()
  ) {
    self.events = events
    self.executor = executor ?? StepExecutor(events: events)
    refresh = CallGate("refreshToken", events: events, ignoresCancellation: serverIgnoresCancellation)
    keychain = FakeKeychain(events: events, failing: keychainFails)
    store = SessionStore(server: FakeAuthServer(gate: refresh), keychain: keychain, token: token)
  }

  func caller(_ n: Int) -> Spawned<Token> {
    let store = self.store
    events.record(
      .call(
        "caller \(n) asks for a valid token", from: .caller("caller \(n)"), label: "asks for a valid token"))
    return executor.spawn("caller \(n)", answering: .caller("caller \(n)")) { try await store.validToken() }
  }

  func cancel(_ caller: Spawned<Token>, _ n: Int) {
    events.record(.cancel("caller \(n) goes away (cancelled)", from: .caller("caller \(n)"), label: "cancel"))
    caller.cancel()
    executor.runUntilIdle()
  }

  func signOut() async {
    events.record(.call("user signs out", from: .caller("user"), label: "signs out"))
    await store.signOut()
  }

  /// Runs the callers as far as they go, then waits for refresh call `index`.
  func waitForRefresh(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    executor.runUntilIdle()
    try await refresh.waitForCall(index, sourceLocation: sourceLocation)
    executor.runUntilIdle()
  }

  func finish(_ callers: [Spawned<Token>], sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await executor.run(
      until: { callers.allSatisfy(\.isFinished) }, "every caller to finish", sourceLocation: sourceLocation)
  }

  func outcome(_ caller: Spawned<Token>) -> String {
    switch caller.result {
    case nil: "still waiting"
    case .success(let token): "got \(token)"
    case .failure(let error): "threw \(show(error))"
    }
  }

  /// What the store says the keychain holds, read once every caller is done.
  var savedToken: Token? {
    get async { await store.savedToken }
  }
}

@Suite("15 A session's lifetime: session store", .exercising("SessionStore.validToken()"))
struct SessionStoreTests {
  @Test("A valid token is returned without a refresh or a save")
  func validToken() async throws {
    let store = Store(token: fresh(0))
    let caller = store.caller(1)
    try await store.finish([caller])
    store.events.expect(store.outcome(caller), equals: "got Token(fresh-0)", "The stored token comes back")
    store.events.expect(store.refresh.callCount, equals: 0, "No refresh")
    store.events.expect(store.keychain.saved, equals: [], "Nothing saved again")
  }

  // Explores orders: the callers' jobs run in every order with up to two
  // choices of a job other than the oldest ready one.
  @Test("Callers waiting together share one refresh, and its token is kept and saved once")
  func oneRefreshSavedOnce() async throws {
    try await Orders.explore("three callers, one refresh, then a fourth") { executor, events in
      let store = Store(executor: executor, events: events)
      let callers = (1...3).map(store.caller)
      try await store.waitForRefresh(0)
      try store.events.require(store.refresh.callCount, equals: 1, "Three callers at once make one refresh")
      store.refresh.succeed(0, with: fresh(1))
      try await store.finish(callers)
      store.events.expect(
        callers.map(store.outcome), equals: Array(repeating: "got Token(fresh-1)", count: 3),
        "Every caller gets the new token")
      store.events.expect(store.keychain.saved, equals: [fresh(1)], "The new token is saved once")
      store.events.expect(await store.savedToken, equals: fresh(1), "savedToken names the saved token")
      let later = store.caller(4)
      try await store.finish([later])
      store.events.expect(store.outcome(later), equals: "got Token(fresh-1)", "The new token is kept")
      store.events.expect(store.refresh.callCount, equals: 1, "Still one refresh in all")
    }
  }

  @Test("A caller that goes away does not cancel the refresh the others wait for")
  func oneCallerLeaves() async throws {
    let store = Store()
    let callers = (1...3).map(store.caller)
    try await store.waitForRefresh(0)
    try store.events.require(store.refresh.callCount, equals: 1, "Three callers at once make one refresh")
    store.cancel(callers[0], 1)
    store.cancel(callers[1], 2)
    store.events.expect(
      !store.refresh.wasCancelled(0), "The refresh goes on while caller 3 still waits for it",
      actual: "it was cancelled")
    store.refresh.succeed(0, with: fresh(1))
    try await store.finish(callers)
    store.events.expect(
      store.outcome(callers[2]), equals: "got Token(fresh-1)", "Caller 3 gets the new token")
    store.events.expect(store.keychain.saved, equals: [fresh(1)], "The new token is saved")
  }

  @Test("When the last caller waiting goes away, the refresh is cancelled")
  func lastCallerLeaves() async throws {
    let store = Store()
    let callers = (1...2).map(store.caller)
    try await store.waitForRefresh(0)
    try store.events.require(store.refresh.callCount, equals: 1, "Two callers at once make one refresh")
    store.cancel(callers[0], 1)
    try store.events.require(
      !store.refresh.wasCancelled(0), "The refresh goes on while caller 2 still waits for it",
      actual: "it was cancelled with caller 1")
    store.cancel(callers[1], 2)
    try await store.refresh.waitForCancellation(of: 0)
    try await store.finish(callers)
    store.events.expect(
      callers.map(store.outcome), equals: ["threw CancellationError()", "threw CancellationError()"],
      "Both callers stop with CancellationError")
    store.events.expect(store.keychain.saved, equals: [], "Nothing is saved")
  }

  @Test(
    "A caller that comes after every caller left starts a new refresh instead of waiting for the cancelled one"
  )
  func newCallerAfterAllLeft() async throws {
    // This server stops only when the check says so, after caller 3 came.
    let store = Store(serverIgnoresCancellation: true)
    let callers = (1...2).map(store.caller)
    try await store.waitForRefresh(0)
    store.cancel(callers[0], 1)
    store.cancel(callers[1], 2)
    try await store.refresh.waitForCancellation(of: 0)
    let third = store.caller(3)
    store.executor.runUntilIdle()
    store.events.record(.note("the cancelled refresh stops at last", in: .code))
    store.refresh.fail(0, with: CancellationError())
    try await store.executor.run(
      until: { third.isFinished || store.refresh.callCount > 1 }, "caller 3 to finish or to start a refresh")
    if store.refresh.callCount > 1 {
      store.refresh.succeed(1, with: fresh(2))
    }
    try await store.finish(callers + [third])
    store.events.expect(
      store.outcome(third), equals: "got Token(fresh-2)",
      "Caller 3 was never cancelled: it gets a token from a refresh of its own")
  }

  @Test(
    "Signing out during a refresh: its callers get sessionChanged and nothing reaches memory or the keychain")
  func signOutDuringRefresh() async throws {
    let store = Store(serverIgnoresCancellation: true)
    let callers = (1...2).map(store.caller)
    try await store.waitForRefresh(0)
    await store.signOut()
    store.events.record(.note("the old session's refresh answers late", in: .code))
    store.refresh.succeed(0, with: fresh(1))
    try await store.finish(callers)
    store.events.expect(
      callers.map(store.outcome),
      equals: ["threw SessionError.sessionChanged", "threw SessionError.sessionChanged"],
      "The callers of the old session get sessionChanged")
    store.events.expect(
      store.keychain.saved, equals: [], "The old session's token is never written to the keychain")
    store.events.expect(await store.savedToken, equals: nil, "Nothing is saved for the new session")

    let next = store.caller(3)
    try await store.executor.run(
      until: { next.isFinished || store.refresh.callCount > 1 }, "caller 3 to finish or to start a refresh")
    if store.refresh.callCount > 1 {
      store.refresh.succeed(1, with: fresh(2))
    }
    try await store.finish([next])
    store.events.expect(
      store.outcome(next), equals: "got Token(fresh-2)",
      "The next call refreshes anew: the old session's token was not kept in memory")
    store.events.expect(store.keychain.saved, equals: [fresh(2)], "Only the new session's token is saved")
  }

  @Test("Sign-out stops the refresh, and its callers get sessionChanged, not CancellationError")
  func signOutStopsRefresh() async throws {
    let store = Store()  // This server stops when it is asked to.
    let callers = (1...2).map(store.caller)
    try await store.waitForRefresh(0)
    await store.signOut()
    store.events.expect(
      store.refresh.wasCancelled(0), "Sign-out cancels the refresh, however many callers wait for it",
      actual: "it was left running")
    if store.refresh.isWaiting(0) {
      // Sign-out did not stop the refresh: the server answers, late.
      store.refresh.succeed(0, with: fresh(1))
    }
    try await store.finish(callers)
    store.events.expect(
      callers.map(store.outcome),
      equals: ["threw SessionError.sessionChanged", "threw SessionError.sessionChanged"],
      "The callers of the old session get sessionChanged, however the refresh ended")
    store.events.expect(store.keychain.saved, equals: [], "Nothing is written to the keychain")
  }

  @Test("A failed keychain save leaves the token usable, and never marked saved")
  func failedSave() async throws {
    let store = Store(keychainFails: true)
    let callers = (1...2).map(store.caller)
    try await store.waitForRefresh(0)
    store.refresh.succeed(0, with: fresh(1))
    try await store.finish(callers)
    store.events.expect(
      callers.map(store.outcome), equals: ["got Token(fresh-1)", "got Token(fresh-1)"],
      "The callers get the new token: the refresh worked, only the save did not")
    store.events.expect(
      await store.savedToken, equals: expired,
      "savedToken still names what the keychain holds, the token from launch, not the one it failed to save")
    let later = store.caller(3)
    try await store.finish([later])
    store.events.expect(store.outcome(later), equals: "got Token(fresh-1)", "The new token is kept in memory")
    store.events.expect(store.refresh.callCount, equals: 1, "No second refresh")
  }

  // Explores orders, as above.
  @Test("A failed refresh reaches every caller, and the next call tries again")
  func failedRefresh() async throws {
    try await Orders.explore("two callers, the refresh failing, then a third") { executor, events in
      let store = Store(executor: executor, events: events)
      let callers = (1...2).map(store.caller)
      try await store.waitForRefresh(0)
      store.refresh.fail(0, with: ServerDown())
      try await store.finish(callers)
      store.events.expect(
        callers.map(store.outcome), equals: ["threw ServerDown", "threw ServerDown"],
        "Every caller gets the refresh's error")
      store.events.expect(store.keychain.saved, equals: [], "Nothing is saved")

      let retry = store.caller(3)
      try await store.waitForRefresh(1)
      store.refresh.succeed(1, with: fresh(1))
      try await store.finish([retry])
      store.events.expect(store.outcome(retry), equals: "got Token(fresh-1)", "The next call refreshes again")
    }
  }
}
