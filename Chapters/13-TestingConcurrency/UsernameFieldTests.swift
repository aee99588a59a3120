// Chapter 13: Testing concurrency
//
// Goal: checks for `UsernameField` (Sources/SignupForm/UsernameField.swift)
// that pass on it every time, take no real time, and fail on every broken
// version of it. The grader runs your checks ten times on the real field,
// then against broken versions you never see, and against other correct
// versions that must pass.
//
// The checks below are the kind teams write: they pass on the real field,
// most of the time, slowly, and catch almost none of the broken versions.
// Replace them. The test kit (`import ConcurrencyTestKit`) has what you need:
// `TestClock`, `CallGate`, `EventLog`.
//
// Run `swift run workshop check 13` to see what your checks catch.

import ConcurrencyTestKit
import SignupForm
import Testing

/// A server that answers after a short real delay.
struct StubServer: UsernameService {
  var taken: Set<String> = []

  func isAvailable(_ name: String) async throws -> Bool {
    // TODO: A real delay: the order of answers is up to the scheduler, and
    // the check cannot make an old answer arrive late on purpose.
    try await Task.sleep(for: .milliseconds(20))
    return !taken.contains(name)
  }
}

@MainActor
@Suite("13 Testing concurrency: username field")
struct UsernameFieldTests {
  @Test("Shows available for a free name")
  func showsAvailable() async throws {
    let field = UsernameField(service: StubServer(), clock: ContinuousClock(), debounce: .milliseconds(100))
    field.nameDidChange("ada")
    // TODO: Sleeping "long enough": slow every time, and wrong on a busy
    // machine. Wait for what you need instead, and let a test clock decide
    // when the pause is over.
    try await Task.sleep(for: .milliseconds(400))
    #expect(field.availability == .available)
  }

  @Test("Shows taken for a taken name")
  func showsTaken() async throws {
    let field = UsernameField(
      service: StubServer(taken: ["ada"]), clock: ContinuousClock(), debounce: .milliseconds(50))
    let typed = ContinuousClock.now
    field.nameDidChange("ada")
    // TODO: Yielding until something changes hopes the scheduler got there.
    for _ in 0..<100 where field.availability == .checking {
      await Task.yield()
    }
    try await Task.sleep(until: typed + .milliseconds(220))
    #expect(field.availability == .taken)
  }

  @Test("Shows the answer for the last name typed")
  func lastNameWins() async throws {
    let field = UsernameField(
      service: StubServer(taken: ["grace"]), clock: ContinuousClock(), debounce: .milliseconds(100))
    field.nameDidChange("ada")
    field.nameDidChange("grace")
    // TODO: The interesting interleaving (an old answer landing after a
    // newer one) never happens here: nothing makes the server answer late.
    try await Task.sleep(for: .milliseconds(400))
    #expect(field.availability == .taken)
  }

  @Test("Two letters are too short")
  func tooShort() {
    let field = UsernameField(service: StubServer(), clock: ContinuousClock())
    field.nameDidChange("ad")
    #expect(field.availability == .tooShort)
    // TODO: What about the server: was it asked? Nothing here can tell.
  }
}
