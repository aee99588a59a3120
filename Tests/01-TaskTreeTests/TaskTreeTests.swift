import ConcurrencyTestKit
import Testing

@testable import TaskTree

private struct ServiceDown: Error, Equatable, CustomStringConvertible {
  var description: String { "ServiceDown" }
}

/// The three loads, answered by the test through gates.
private struct FakeDashboardService: DashboardService {
  let profile: CallGate<Void, Profile>
  let feed: CallGate<Void, [FeedItem]>
  let badges: CallGate<Void, [Badge]>

  func loadProfile() async throws -> Profile { try await profile.call(()) }
  func loadFeed() async throws -> [FeedItem] { try await feed.call(()) }
  func loadBadges() async throws -> [Badge] { try await badges.call(()) }
}

private let ada = Profile(name: "Ada")
private let posts = [FeedItem(title: "Hello"), FeedItem(title: "Structured concurrency")]
private let earned = [Badge(name: "First post")]

/// Which of the three loads a check is about.
enum Load: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case profile, feed, badges
  var testDescription: String { "the \(rawValue) load" }
}

/// A dashboard screen wired to gated loads.
@MainActor
private struct Screen {
  let events = EventLog()
  let profile: CallGate<Void, Profile>
  let feed: CallGate<Void, [FeedItem]>
  let badges: CallGate<Void, [Badge]>
  let model: DashboardModel

  init(loadsIgnoreCancellation: Bool = false) {
    profile = CallGate("loadProfile", events: events, ignoresCancellation: loadsIgnoreCancellation)
    feed = CallGate("loadFeed", events: events, ignoresCancellation: loadsIgnoreCancellation)
    badges = CallGate("loadBadges", events: events, ignoresCancellation: loadsIgnoreCancellation)
    model = DashboardModel(service: FakeDashboardService(profile: profile, feed: feed, badges: badges))
  }

  /// Calls `refresh()` from a task of its own, as the screen does, and logs how it ends.
  func startRefresh() -> Task<Void, any Error> {
    let events = self.events
    let model = self.model
    events.record(.call("screen calls refresh()", from: .caller("screen"), label: "refresh()"))
    return Task {
      do {
        try await model.refresh()
        events.record(.answer("refresh() returned", label: "returned"))
      } catch {
        events.record(.answer("refresh() threw \(show(error))", label: "threw \(show(error))"))
        throw error
      }
    }
  }

  /// Waits until all three loads are in flight at once.
  func waitForAllLoads(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await profile.waitForCall(0, sourceLocation: sourceLocation)
    try await feed.waitForCall(0, sourceLocation: sourceLocation)
    try await badges.waitForCall(0, sourceLocation: sourceLocation)
  }

  func fail(_ load: Load, with error: any Error) {
    switch load {
    case .profile: profile.fail(0, with: error)
    case .feed: feed.fail(0, with: error)
    case .badges: badges.fail(0, with: error)
    }
  }

  func succeed(_ load: Load) {
    switch load {
    case .profile: profile.succeed(0, with: ada)
    case .feed: feed.succeed(0, with: posts)
    case .badges: badges.succeed(0, with: earned)
    }
  }

  func waitForCancellation(of load: Load, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    switch load {
    case .profile: try await profile.waitForCancellation(of: 0, sourceLocation: sourceLocation)
    case .feed: try await feed.waitForCancellation(of: 0, sourceLocation: sourceLocation)
    case .badges: try await badges.waitForCancellation(of: 0, sourceLocation: sourceLocation)
    }
  }

  /// Whether any load is still waiting for an answer.
  var loadsStillRunning: [String] {
    [("profile", profile.isWaiting(0)), ("feed", feed.isWaiting(0)), ("badges", badges.isWaiting(0))]
      .filter(\.1).map(\.0)
  }

  /// Whether the caller's `refresh()` has come back, one way or the other.
  var refreshHasReturned: Bool {
    events.sentences.contains { $0.hasPrefix("refresh() returned") || $0.hasPrefix("refresh() threw") }
  }

  /// Waits for the caller's task and returns how it ended.
  func outcome(of caller: Task<Void, any Error>) async throws -> String {
    try await events.withinTimeLimit("refresh()") {
      do {
        try await caller.value
        return "returned"
      } catch {
        return "threw \(show(error))"
      }
    }
  }
}

@MainActor
@Suite("01 Task tree", .exercising("DashboardModel.refresh()"))
struct TaskTreeTests {
  @Test("Loads the profile, the feed and the badges at the same time")
  func loadsInParallel() async throws {
    let screen = Screen()
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    for load in Load.allCases { screen.succeed(load) }
    screen.events.expect(try await screen.outcome(of: caller), equals: "returned", "refresh() succeeds")
  }

  @Test("Shows each load's result in its own field, whatever order they finish in")
  func resultsLandInTheirFields() async throws {
    let screen = Screen()
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    for load in Load.allCases.reversed() { screen.succeed(load) }
    try screen.events.require(
      try await screen.outcome(of: caller), equals: "returned", "refresh() succeeds")
    screen.events.expect(
      screen.model.dashboard, equals: Dashboard(profile: ada, feed: posts, badges: earned),
      "The dashboard shows the profile, the feed and the badges")
  }

  @Test("refresh() returns only after every load has finished")
  func returnsWhenDone() async throws {
    let screen = Screen()
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    try screen.events.require(
      !screen.refreshHasReturned, "refresh() is still running while its loads are in flight",
      actual: "refresh() came back before any load finished")
    for load in Load.allCases { screen.succeed(load) }
    screen.events.expect(try await screen.outcome(of: caller), equals: "returned", "refresh() succeeds")
    screen.events.expect(
      screen.model.dashboard != nil, "The dashboard is on screen the moment refresh() returns",
      actual: "nothing is shown yet")
  }

  @Test("A failing load is reported at once and cancels the loads still running", arguments: Load.allCases)
  func failureCancelsSiblings(failing: Load) async throws {
    let screen = Screen()
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    // Only the failing load answers: the other two are still running, and
    // refresh() has to notice the failure without waiting for them.
    screen.fail(failing, with: ServiceDown())
    for other in Load.allCases where other != failing {
      try await screen.waitForCancellation(of: other)
    }
    screen.events.expect(
      try await screen.outcome(of: caller), equals: "threw ServiceDown",
      "refresh() throws the failing load's error")
    screen.events.expect(screen.model.dashboard, equals: nil, "Nothing is shown")
  }

  @Test("A failed refresh shows its error in the banner")
  func failureShowsTheBanner() async throws {
    let screen = Screen()
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    screen.fail(.profile, with: ServiceDown())
    try screen.events.require(
      try await screen.outcome(of: caller), equals: "threw ServiceDown",
      "refresh() throws the failing load's error")
    screen.events.expect(
      show(screen.model.lastError), equals: "ServiceDown", "The banner (lastError) shows the load's error")
  }

  @Test("A cancelled refresh shows no error banner")
  func cancellationShowsNoBanner() async throws {
    let screen = Screen()
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    screen.events.record(
      .cancel("screen goes away: its task is cancelled", from: .caller("screen"), label: "cancel"))
    caller.cancel()
    try screen.events.require(
      try await screen.outcome(of: caller), equals: "threw CancellationError()",
      "refresh() ends with CancellationError")
    screen.events.expect(
      show(screen.model.lastError), equals: "nil",
      "Leaving the screen is not a failure: the banner (lastError) stays empty")
  }

  @Test("A refresh cancelled after its loads have answered shows nothing")
  func cancelledAfterTheLoadsAnswered() async throws {
    // The loads take no notice of the cancel and answer anyway: the check for
    // cancellation has to come after them, just before publishing.
    let screen = Screen(loadsIgnoreCancellation: true)
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    screen.events.record(
      .cancel("screen goes away: its task is cancelled", from: .caller("screen"), label: "cancel"))
    caller.cancel()
    for load in Load.allCases { try await screen.waitForCancellation(of: load) }
    for load in Load.allCases { screen.succeed(load) }
    screen.events.expect(
      try await screen.outcome(of: caller), equals: "threw CancellationError()",
      "refresh() ends with CancellationError, even though every load answered")
    screen.events.expect(
      screen.model.dashboard, equals: nil, "Nothing is shown for a screen that has gone away")
    screen.events.expect(show(screen.model.lastError), equals: "nil", "No error banner is shown")
  }

  @Test("Cancelling the caller cancels every load and shows nothing")
  func cancellingTheCaller() async throws {
    let screen = Screen()
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    screen.events.record(
      .cancel("screen goes away: its task is cancelled", from: .caller("screen"), label: "cancel"))
    caller.cancel()
    for load in Load.allCases { try await screen.waitForCancellation(of: load) }
    screen.events.expect(
      try await screen.outcome(of: caller), equals: "threw CancellationError()",
      "refresh() ends with CancellationError")
    screen.events.expect(screen.model.dashboard, equals: nil, "Nothing is shown")
  }

  @Test("A failing load cancels the other loads together, and refresh() waits for them to wind down")
  func leavesNothingRunning() async throws {
    let screen = Screen(loadsIgnoreCancellation: true)
    let caller = screen.startRefresh()
    try await screen.waitForAllLoads()
    screen.fail(.profile, with: ServiceDown())
    // Both are cancelled while both are still running: neither waits for the
    // other to wind down before it hears of the failure.
    try await screen.waitForCancellation(of: .feed)
    try await screen.waitForCancellation(of: .badges)
    try screen.events.require(
      !screen.refreshHasReturned, "refresh() does not return while cancelled loads are still running",
      actual: "it returned and left \(screen.loadsStillRunning.joined(separator: " and ")) running")
    screen.succeed(.feed)
    screen.succeed(.badges)
    screen.events.expect(
      try await screen.outcome(of: caller), equals: "threw ServiceDown",
      "refresh() throws the failing load's error once the others have finished")
    screen.events.expect(screen.loadsStillRunning, equals: [], "No load is left running")
    screen.events.expect(screen.model.dashboard, equals: nil, "Nothing is shown")
  }
}

// MARK: - Exercise 2: the account page

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
