import ConcurrencyTestKit
import Testing

@testable import TaskTree

private struct Down: Error, CustomStringConvertible {
  var description: String { "Down" }
}

private struct FakeAccountService: AccountService {
  let account: CallGate<Void, Account>
  let messages: CallGate<Void, [Message]>
  let cards: CallGate<Void, [Card]>

  func loadAccount() async throws -> Account { try await account.call(()) }
  func loadMessages() async throws -> [Message] { try await messages.call(()) }
  func loadCards() async throws -> [Card] { try await cards.call(()) }
}

private let grace = Account(name: "Grace")
private let inbox = [Message(subject: "Your receipt")]
private let oldInbox = [Message(subject: "Welcome")]
private let wallet = [Card(last4: "4242")]
private let oldWallet = [Card(last4: "1881")]

/// An account page wired to gated loads, with a cache from the last visit.
@MainActor
private struct Page {
  let events = EventLog()
  let account: CallGate<Void, Account>
  let messages: CallGate<Void, [Message]>
  let cards: CallGate<Void, [Card]>
  let page: AccountPage

  init() {
    account = CallGate("loadAccount", events: events)
    messages = CallGate("loadMessages", events: events)
    cards = CallGate("loadCards", events: events)
    page = AccountPage(
      service: FakeAccountService(account: account, messages: messages, cards: cards),
      cachedMessages: oldInbox, cachedCards: oldWallet)
  }

  /// Calls `load()` from a task of its own, as the screen does.
  func startLoad() -> Task<Void, any Error> {
    let (events, page) = (self.events, self.page)
    events.record(.call("screen calls load()", from: .caller("screen"), label: "load()"))
    return Task {
      do {
        try await page.load()
        events.record(.answer("load() returned", label: "returned"))
      } catch {
        events.record(.answer("load() threw \(show(error))", label: "threw \(show(error))"))
        throw error
      }
    }
  }

  /// Waits until all three loads are in flight at once.
  func waitForAllLoads(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await account.waitForCall(0, sourceLocation: sourceLocation)
    try await messages.waitForCall(0, sourceLocation: sourceLocation)
    try await cards.waitForCall(0, sourceLocation: sourceLocation)
  }

  func outcome(of caller: Task<Void, any Error>) async throws -> String {
    try await events.withinTimeLimit("load()") {
      do {
        try await caller.value
        return "returned"
      } catch {
        return "threw \(show(error))"
      }
    }
  }

  /// The page as the screen draws it.
  var shown: String {
    "account \(show(page.account)), messages \(page.messages), cards \(page.cards)"
  }
}

@MainActor
@Suite("01 Task tree: account page", .exercising("AccountPage.load()"))
struct AccountPageTests {
  @Test("The account, the messages and the cards load at the same time, each in its own section")
  func loadsTogether() async throws {
    let page = Page()
    let caller = page.startLoad()
    try await page.waitForAllLoads()
    page.cards.succeed(0, with: wallet)
    page.messages.succeed(0, with: inbox)
    page.account.succeed(0, with: grace)
    try page.events.require(try await page.outcome(of: caller), equals: "returned", "load() succeeds")
    page.events.expect(
      page.shown,
      equals: "account Account(Grace), messages loaded([Your receipt]), cards loaded([•••• 4242])",
      "Each section shows its own load's result")
  }

  @Test(
    "A failing optional section shows as failed, over what was cached, and the rest of the page loads",
    arguments: ["messages", "cards"])
  func optionalSectionFails(failing: String) async throws {
    let page = Page()
    let caller = page.startLoad()
    try await page.waitForAllLoads()
    if failing == "messages" {
      page.messages.fail(0, with: Down())
      page.cards.succeed(0, with: wallet)
    } else {
      page.cards.fail(0, with: Down())
      page.messages.succeed(0, with: inbox)
    }
    page.account.succeed(0, with: grace)
    try page.events.require(
      try await page.outcome(of: caller), equals: "returned",
      "load() succeeds: an optional section's error is shown, not thrown")
    let expected =
      failing == "messages"
      ? "account Account(Grace), messages failed(cached: Optional([Welcome])), cards loaded([•••• 4242])"
      : "account Account(Grace), messages loaded([Your receipt]), cards failed(cached: Optional([•••• 1881]))"
    page.events.expect(
      page.shown, equals: expected, "The \(failing) section says it failed, over the cached copy")
  }

  @Test("An empty inbox shows as loaded and empty, not as failed")
  func emptyIsNotFailed() async throws {
    let page = Page()
    let caller = page.startLoad()
    try await page.waitForAllLoads()
    page.messages.succeed(0, with: [])
    page.cards.succeed(0, with: wallet)
    page.account.succeed(0, with: grace)
    try page.events.require(try await page.outcome(of: caller), equals: "returned", "load() succeeds")
    page.events.expect(
      page.shown, equals: "account Account(Grace), messages loaded([]), cards loaded([•••• 4242])",
      "No messages is a loaded, empty inbox")
  }

  @Test("A failing account fails the page at once, cancels the other loads and shows nothing")
  func requiredSectionFails() async throws {
    let page = Page()
    let caller = page.startLoad()
    try await page.waitForAllLoads()
    // Only the account answers: the page must not wait for the other two.
    page.account.fail(0, with: Down())
    try await page.messages.waitForCancellation(of: 0)
    try await page.cards.waitForCancellation(of: 0)
    page.events.expect(
      try await page.outcome(of: caller), equals: "threw Down", "load() throws the account's error")
    page.events.expect(
      page.shown, equals: "account nil, messages loading, cards loading", "Nothing is shown")
  }

  @Test("A page closed while its sections load shows no section as failed")
  func cancelledIsNotFailed() async throws {
    let page = Page()
    let caller = page.startLoad()
    try await page.waitForAllLoads()
    page.account.succeed(0, with: grace)
    page.events.record(
      .cancel("the screen goes away: its task is cancelled", from: .caller("screen"), label: "cancel"))
    caller.cancel()
    try await page.messages.waitForCancellation(of: 0)
    try await page.cards.waitForCancellation(of: 0)
    page.events.expect(
      try await page.outcome(of: caller), equals: "threw CancellationError()",
      "load() ends with CancellationError")
    page.events.expect(
      page.shown, equals: "account nil, messages loading, cards loading",
      "Nothing is shown: a load stopped because the page went away is no failure")
  }
}
