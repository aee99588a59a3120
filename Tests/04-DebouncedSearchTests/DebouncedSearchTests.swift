import ConcurrencyTestKit
import Testing

@testable import DebouncedSearch

/// The search backend, answered by the test through a gate.
private struct FakeSearchService: ProductSearching {
  let gate: CallGate<String, [Product]>

  func search(_ query: String) async throws -> [Product] {
    try await gate.call(query)
  }
}

private struct ServerDown: Error, CustomStringConvertible {
  var description: String { "ServerDown" }
}

private let debounce = Duration.milliseconds(300)

/// One search screen wired to a test clock and a gated service.
@MainActor
private struct Screen {
  let events = EventLog()
  let clock: TestClock
  let search: CallGate<String, [Product]>
  let model: SearchModel

  init(serviceIgnoresCancellation: Bool = false) {
    clock = TestClock(events: events)
    search = CallGate("search", events: events, ignoresCancellation: serviceIgnoresCancellation)
    model = SearchModel(service: FakeSearchService(gate: search), clock: clock, debounce: debounce)
  }

  /// The user edits the search field so that it reads `text`.
  @discardableResult
  func type(_ text: String) -> Task<Void, Never> {
    events.record(
      .call(
        "user typed \(String(reflecting: text))", from: .caller("user"),
        label: "typed \(String(reflecting: text))"))
    return model.searchTextDidChange(text)
  }

  /// Types `text`, lets the quiet window pass, and waits for the request it sends.
  func typeAndWaitForRequest(
    _ text: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> (task: Task<Void, Never>, call: Int) {
    let call = search.callCount
    let task = type(text)
    try await clock.waitForSleepers(1, sourceLocation: sourceLocation)
    clock.advance(by: debounce)
    try await search.waitForCall(call, sourceLocation: sourceLocation)
    return (task, call)
  }

  /// Waits for a keystroke's task to end, then logs what the screen shows.
  func finish(
    _ task: Task<Void, Never>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await events.withinTimeLimit(what, sourceLocation: sourceLocation) { await task.value }
    logScreen()
  }

  func logScreen() {
    let shown = "\(model.products), error: \(model.errorMessage ?? "none")"
    events.record(.publish("screen shows " + shown, to: .caller("screen"), label: shown))
  }

  /// Shows `results` for `text`, the way a user would get there.
  func show(_ results: [Product], for text: String) async throws {
    let (task, call) = try await typeAndWaitForRequest(text)
    search.succeed(call, with: results)
    try await finish(task, "the search for \(String(reflecting: text))")
  }
}

private let swiftBooks = [Product(name: "Swift Book"), Product(name: "Swift Stickers")]
private let sweaters = [Product(name: "Sweater")]

@MainActor
@Suite("04 Debounced search", .exercising("SearchModel.searchTextDidChange(_:)"))
struct DebouncedSearchTests {
  @Test("Shows the results for a keyword once the user stops typing")
  func happyPath() async throws {
    let screen = Screen()
    let (task, call) = try await screen.typeAndWaitForRequest("swift")
    screen.events.expect(screen.search.arguments, equals: ["swift"], "One request, for the keyword typed")
    screen.search.succeed(call, with: swiftBooks)
    try await screen.finish(task, "the search for \"swift\"")
    screen.events.expect(screen.model.products, equals: swiftBooks, "The results are on screen")
    screen.events.expect(screen.model.errorMessage, equals: nil, "No error is shown")
  }

  @Test("Waits for the whole quiet window before sending a request")
  func waitsForQuietWindow() async throws {
    let screen = Screen()
    let task = screen.type("swift")
    try await screen.clock.waitForSleepers(1)
    screen.clock.advance(by: debounce - .milliseconds(1))
    try screen.events.require(
      screen.clock.sleeperCount == 1 && screen.search.callCount == 0,
      "1 ms before the quiet window ends, the model is still waiting and has sent nothing",
      actual: "\(screen.clock.sleeperCount) sleeping, \(screen.search.callCount) request(s) sent")
    screen.clock.advance(by: .milliseconds(1))
    try await screen.search.waitForCall(0)
    screen.search.succeed(0, with: swiftBooks)
    try await screen.finish(task, "the search for \"swift\"")
    screen.events.expect(screen.model.products, equals: swiftBooks, "The results are on screen")
  }

  @Test("Sends nothing for keystrokes the user typed over")
  func typingOverSendsNothing() async throws {
    let screen = Screen()
    var superseded: [Task<Void, Never>] = []
    for text in ["s", "sw", "swi"] { superseded.append(screen.type(text)) }
    let last = screen.type("swift")
    for (task, text) in zip(superseded, ["s", "sw", "swi"]) {
      try await screen.finish(task, "the cancelled keystroke \(String(reflecting: text))")
    }
    try screen.events.require(
      screen.search.arguments, equals: [],
      "Keystrokes that were typed over within the quiet window send no request")

    try await screen.clock.waitForSleepers(1)
    screen.clock.advance(by: debounce)
    try await screen.search.waitForCall(0)
    screen.search.succeed(0, with: swiftBooks)
    try await screen.finish(last, "the search for \"swift\"")
    screen.events.expect(
      screen.search.arguments, equals: ["swift"], "Only the latest keyword is sent")
    screen.events.expect(screen.model.products, equals: swiftBooks, "The latest results are on screen")
  }

  @Test("A late answer for an old keyword never replaces newer results")
  func staleAnswerIsDropped() async throws {
    let screen = Screen(serviceIgnoresCancellation: true)
    let (old, oldCall) = try await screen.typeAndWaitForRequest("sw")
    let (new, newCall) = try await screen.typeAndWaitForRequest("swift")
    screen.search.succeed(newCall, with: swiftBooks)
    try await screen.finish(new, "the search for \"swift\"")
    try screen.events.require(
      screen.model.products, equals: swiftBooks, "The results for \"swift\" are on screen")

    screen.search.succeed(oldCall, with: sweaters)
    try await screen.finish(old, "the search for \"sw\", answered late")
    screen.events.expect(
      screen.model.products, equals: swiftBooks,
      "The late answer for \"sw\" is dropped; the results for \"swift\" stay")
  }

  @Test("A failure of an old keyword is never shown")
  func staleFailureIsDropped() async throws {
    let screen = Screen(serviceIgnoresCancellation: true)
    let (old, oldCall) = try await screen.typeAndWaitForRequest("sw")
    let (new, newCall) = try await screen.typeAndWaitForRequest("swift")
    screen.search.fail(oldCall, with: ServerDown())
    try await screen.finish(old, "the search for \"sw\", failing late")
    screen.events.expect(
      screen.model.errorMessage, equals: nil, "The old keyword's failure is not shown")

    screen.search.succeed(newCall, with: swiftBooks)
    try await screen.finish(new, "the search for \"swift\"")
    screen.events.expect(screen.model.products, equals: swiftBooks, "The results for \"swift\" are on screen")
    screen.events.expect(screen.model.errorMessage, equals: nil, "No error is shown")
  }

  @Test("Cancelling an old search shows no error and keeps the list")
  func cancellationIsNotAnError() async throws {
    let screen = Screen()
    try await screen.show(swiftBooks, for: "swift")
    let (old, oldCall) = try await screen.typeAndWaitForRequest("swiftui")
    let newer = screen.type("swiftdata")
    try await screen.search.waitForCancellation(of: oldCall)
    try await screen.finish(old, "the cancelled search for \"swiftui\"")
    screen.events.expect(
      screen.model.errorMessage, equals: nil, "Cancellation is not shown as an error")
    screen.events.expect(
      screen.model.products, equals: swiftBooks,
      "The list on screen stays until newer results replace it")
    screen.model.stop()
    try await screen.finish(newer, "the keystroke \"swiftdata\" after stop()")
  }

  @Test("Shows the error when the latest search fails")
  func currentFailureIsShown() async throws {
    let screen = Screen()
    let (task, call) = try await screen.typeAndWaitForRequest("swift")
    screen.search.fail(call, with: ServerDown())
    try await screen.finish(task, "the failing search for \"swift\"")
    screen.events.expect(
      screen.model.errorMessage != nil, "The failure of the latest keyword is shown",
      actual: "no error message")

    try await screen.show(swiftBooks, for: "swift")
    screen.events.expect(
      screen.model.errorMessage, equals: nil, "A later successful search clears the error")
    screen.events.expect(screen.model.products, equals: swiftBooks, "The new results are on screen")
  }

  @Test("stop() during the quiet window sends nothing and changes nothing")
  func stopDuringQuietWindow() async throws {
    let screen = Screen()
    try await screen.show(swiftBooks, for: "swift")
    let task = screen.type("swiftui")
    try await screen.clock.waitForSleepers(1)
    screen.events.record(.call("screen stopped", from: .caller("screen"), label: "stopped"))
    screen.model.stop()
    try await screen.finish(task, "the keystroke typed before stop()")
    screen.events.expect(screen.search.arguments, equals: ["swift"], "No request after stop()")
    screen.events.expect(screen.model.products, equals: swiftBooks, "The screen is unchanged")
    screen.events.expect(screen.model.errorMessage, equals: nil, "No error is shown")
  }

  @Test("stop() drops an answer that arrives afterwards", .exercising("SearchModel.stop()"))
  func stopDropsLateAnswer() async throws {
    let screen = Screen(serviceIgnoresCancellation: true)
    let (task, call) = try await screen.typeAndWaitForRequest("swift")
    screen.events.record(.call("screen stopped", from: .caller("screen"), label: "stopped"))
    screen.model.stop()
    screen.search.succeed(call, with: swiftBooks)
    try await screen.finish(task, "the search answered after stop()")
    screen.events.expect(screen.model.products, equals: [], "Nothing is published after stop()")
    screen.events.expect(screen.model.errorMessage, equals: nil, "No error is shown")
  }

  @Test("Clearing the field clears the results without a request")
  func blankInput() async throws {
    let screen = Screen()
    try await screen.show(swiftBooks, for: "swift")
    let task = screen.type("   ")
    try await screen.finish(task, "the blank keystroke")
    screen.events.expect(screen.model.products, equals: [], "The results are cleared")
    screen.events.expect(screen.search.arguments, equals: ["swift"], "No request for blank input")
  }

  @Test("Clearing the field drops the search still in flight")
  func blankInputDropsSearchInFlight() async throws {
    let screen = Screen(serviceIgnoresCancellation: true)
    let (old, oldCall) = try await screen.typeAndWaitForRequest("swift")
    let blank = screen.type("")
    try await screen.finish(blank, "the blank keystroke")
    screen.search.succeed(oldCall, with: swiftBooks)
    try await screen.finish(old, "the search for \"swift\", answered after the field was cleared")
    screen.events.expect(
      screen.model.products, equals: [],
      "The late answer for \"swift\" is dropped; the cleared field shows no results")
    screen.events.expect(screen.model.errorMessage, equals: nil, "No error is shown")
    screen.events.expect(screen.search.arguments, equals: ["swift"], "No request for the blank field")
  }

  @Test("Spaces around the keyword are trimmed before searching")
  func inputIsTrimmed() async throws {
    let screen = Screen()
    let (task, call) = try await screen.typeAndWaitForRequest("  swift \n")
    screen.events.expect(screen.search.arguments, equals: ["swift"], "The request has the trimmed keyword")
    screen.search.succeed(call, with: swiftBooks)
    try await screen.finish(task, "the search for \"swift\"")
    screen.events.expect(screen.model.products, equals: swiftBooks, "The results are on screen")
  }
}
