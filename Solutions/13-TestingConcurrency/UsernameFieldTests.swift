// Chapter 13: Testing concurrency (reference solution)
//
// Goal: checks for `UsernameField` (Sources/SignupForm/UsernameField.swift)
// that pass on it every time, take no real time, and fail on every broken
// version of it.
//
// How these checks decide every interleaving themselves:
// 1. Time is a `TestClock`. A check waits until the field's task is asleep on
//    it (`waitForSleepers`) before it moves time: advancing earlier would be
//    missed, which is the race every "sleep 400 ms and hope" test loses now
//    and then.
// 2. The server is a `CallGate`: each call waits until the check answers it,
//    so "the old answer arrives late" is a line in the check, not luck. A
//    gate created with `ignoresCancellation: true` plays a server that
//    answers even a cancelled call, which is what makes a stale answer land.
// 3. The check awaits the task `nameDidChange` returns, or a recorded event,
//    before it looks at the field: never `Task.yield()` loops.
// 4. Every wait has the kit's hang bound, and every failure prints the
//    recorded events, so a failure says what happened in which order.

import ConcurrencyTestKit
import SignupForm
import Testing

/// The sign-up server, answered by the check through a gate.
struct FakeServer: UsernameService {
  let gate: CallGate<String, Bool>

  func isAvailable(_ name: String) async throws -> Bool {
    try await gate.call(name)
  }
}

struct ServerDown: Error, CustomStringConvertible {
  var description: String { "ServerDown" }
}

/// Not the field's default (300 ms): a field that waits its default pause
/// whatever it is given would pass every check that uses the default.
let debounce = Duration.milliseconds(450)

/// One sign-up form: the field, a test clock and a gated server.
@MainActor
struct Form {
  let events = EventLog()
  let clock: TestClock
  let server: CallGate<String, Bool>
  let field: UsernameField

  init(serverAnswersCancelledCalls: Bool = false) {
    clock = TestClock(events: events)
    server = CallGate("isAvailable", events: events, ignoresCancellation: serverAnswersCancelledCalls)
    field = UsernameField(service: FakeServer(gate: server), clock: clock, debounce: debounce)
  }

  /// The user edits the box so that it reads `text`.
  @discardableResult
  func type(_ text: String) -> Task<Void, Never> {
    events.record(
      .call(
        "user types \(String(reflecting: text))", from: .caller("user"),
        label: "types \(String(reflecting: text))"))
    let task = field.nameDidChange(text)
    recordWhatTheFieldShows()
    return task
  }

  /// Types `text`, lets the pause pass, and waits for the server call it makes.
  func typeAndWaitForCall(
    _ text: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> (task: Task<Void, Never>, call: Int) {
    let call = server.callCount
    let task = type(text)
    try await clock.waitForSleepers(1, sourceLocation: sourceLocation)
    clock.advance(by: debounce)
    try await server.waitForCall(call, sourceLocation: sourceLocation)
    return (task, call)
  }

  /// Waits for a change's task to end, then records what the field shows.
  func finish(
    _ task: Task<Void, Never>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await events.withinTimeLimit(what, sourceLocation: sourceLocation) { await task.value }
    recordWhatTheFieldShows()
  }

  /// Records what the field shows, as the field showing it to the user:
  /// a timeline draws it from the field's code to the user's screen.
  private func recordWhatTheFieldShows() {
    let shown = "\(field.availability)"
    events.record(.publish("field shows " + shown, to: .caller("field"), label: shown))
  }
}

@MainActor
@Suite("13 Testing concurrency: username field")
struct UsernameFieldTests {
  @Test("Shows whether the name is free once the user pauses")
  func showsAnswerAfterPause() async throws {
    let form = Form()
    let (task, call) = try await form.typeAndWaitForCall("ada")
    form.events.expect(form.server.arguments, equals: ["ada"], "The server is asked about \"ada\"")
    form.server.succeed(call, with: false)
    try await form.finish(task, "the check of \"ada\"")
    form.events.expect(
      form.field.availability, equals: .taken, "A name the server says is taken shows as taken")

    let (next, nextCall) = try await form.typeAndWaitForCall("ada_l")
    form.server.succeed(nextCall, with: true)
    try await form.finish(next, "the check of \"ada_l\"")
    form.events.expect(form.field.availability, equals: .available, "A free name shows as available")
  }

  @Test("Shows checking at once, and asks nobody before the pause is over")
  func waitsForWholePause() async throws {
    let form = Form()
    let (first, call) = try await form.typeAndWaitForCall("ada")
    form.server.succeed(call, with: true)
    try await form.finish(first, "the check of \"ada\"")
    form.type("grace")
    form.events.expect(
      form.field.availability, equals: .checking, "A new name shows checking, not the old name's answer")
    try await form.clock.waitForSleepers(1)
    form.clock.advance(by: debounce - .milliseconds(1))
    // `advance` wakes due sleepers before it returns: a field still asleep
    // now cannot ask the server yet, whatever runs next.
    form.events.expect(
      form.clock.sleeperCount, equals: 1, "1 ms before the pause is over, the field still waits")
    form.clock.advance(by: .milliseconds(1))
    try await form.server.waitForCall(1)
    form.events.expect(form.server.arguments, equals: ["ada", "grace"], "Then \"grace\" is asked about")
  }

  @Test("Never asks about a name the user typed over")
  func typedOverNamesAreNotAsked() async throws {
    let form = Form()
    let typedOver = ["gra", "grac"].map { form.type($0) }
    let last = form.type("grace")
    for task in typedOver { try await form.finish(task, "a typed-over change") }
    try await form.clock.waitForSleepers(1)
    form.clock.advance(by: debounce)
    try await form.server.waitForCall(0)
    form.server.succeed(0, with: true)
    try await form.finish(last, "the check of \"grace\"")
    form.events.expect(form.server.arguments, equals: ["grace"], "Only the last name is asked about")
  }

  @Test("A late answer for an older name is never shown")
  func staleAnswerIsDropped() async throws {
    let form = Form(serverAnswersCancelledCalls: true)
    let (old, oldCall) = try await form.typeAndWaitForCall("ada")
    let (new, newCall) = try await form.typeAndWaitForCall("grace")
    form.server.succeed(newCall, with: false)
    try await form.finish(new, "the check of \"grace\"")
    form.server.succeed(oldCall, with: true)
    try await form.finish(old, "the check of \"ada\", answered late")
    form.events.expect(
      form.field.availability, equals: .taken,
      "The answer for \"grace\" stays; the late \"ada\" one is dropped")
  }

  @Test("A late failure for an older name is never shown")
  func staleFailureIsDropped() async throws {
    let form = Form(serverAnswersCancelledCalls: true)
    let (old, oldCall) = try await form.typeAndWaitForCall("ada")
    let (new, newCall) = try await form.typeAndWaitForCall("grace")
    form.server.succeed(newCall, with: true)
    try await form.finish(new, "the check of \"grace\"")
    form.server.fail(oldCall, with: ServerDown())
    try await form.finish(old, "the check of \"ada\", failing late")
    form.events.expect(
      form.field.availability, equals: .available,
      "The answer for \"grace\" stays; the late failure of \"ada\" is dropped")
  }

  @Test("Typing on cancels the server call in flight, and that is not a failure")
  func typingOnCancelsTheCall() async throws {
    let form = Form()
    let (old, oldCall) = try await form.typeAndWaitForCall("ada")
    form.type("grace")
    try await form.server.waitForCancellation(of: oldCall)
    try await form.finish(old, "the cancelled check of \"ada\"")
    form.events.expect(
      form.field.availability, equals: .checking, "The field still shows checking for \"grace\", no failure")
  }

  @Test("Shows the failure when the server cannot answer")
  func failureIsShown() async throws {
    let form = Form()
    let (task, call) = try await form.typeAndWaitForCall("ada")
    form.server.fail(call, with: ServerDown())
    try await form.finish(task, "the failing check of \"ada\"")
    form.events.expect(
      form.field.availability, equals: .failed("Could not check the name: ServerDown"), "The failure is shown"
    )
  }

  @Test("Short and empty names are judged at once, without the server")
  func shortNamesAreNotAsked() async throws {
    let form = Form()
    let (first, call) = try await form.typeAndWaitForCall("ada")
    form.server.succeed(call, with: true)
    try await form.finish(first, "the check of \"ada\"")
    let cleared = form.type("")
    form.events.expect(
      form.field.availability, equals: .idle, "A cleared box shows nothing, not the old answer")
    try await form.finish(cleared, "the change to \"\"")
    let short = form.type("ad")
    form.events.expect(form.field.availability, equals: .tooShort, "Two letters are too short")
    try await form.finish(short, "the change to \"ad\"")
    let empty = form.type("  ")
    form.events.expect(form.field.availability, equals: .idle, "Only spaces is nothing typed")
    try await form.finish(empty, "the change to \"  \"")
    let padded = form.type("  ab ")
    form.events.expect(form.field.availability, equals: .tooShort, "Spaces around a name are not letters")
    try await form.finish(padded, "the change to \"  ab \"")
    form.events.expect(form.clock.sleeperCount, equals: 0, "Nothing waits for a pause")
    form.events.expect(form.server.callCount, equals: 1, "The server is asked about \"ada\" only")
  }

  @Test("After stop(), a late answer changes nothing")
  func stopDropsLateAnswer() async throws {
    let form = Form(serverAnswersCancelledCalls: true)
    let (task, call) = try await form.typeAndWaitForCall("ada")
    form.events.record("the form closes")
    form.field.stop()
    form.server.succeed(call, with: true)
    try await form.finish(task, "the check answered after stop()")
    form.events.expect(form.field.availability, equals: .checking, "The field is left as it was")
  }
}
