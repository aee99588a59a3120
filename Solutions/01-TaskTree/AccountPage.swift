// Chapter 01: Task tree (exercise 2 of 2, reference solution)
//
// Goal: `AccountPage.load()` loads the account, the messages and the cards at
// the same time. The account is required: its error fails the page at once,
// cancels the other two loads and shows nothing. The messages and the cards
// are optional: each one's error shows in its own section, over what the page
// had cached, while the rest of the page loads. An empty inbox and a failed
// one never look the same, and a cancelled page shows no section as failed.
//
// The fixes:
//   1. The account is awaited with `try`: its error leaves `load()`, and
//      leaving a scope with `async let`s still running cancels them and waits
//      for them (SE-0317), so the page fails at once and leaves nothing behind.
//   2. Each optional load goes through `section(cached:_:)`, which turns its
//      error into `.failed(cached:)` for that section alone: the error is
//      shown, not thrown, and an empty result stays `.loaded([])`.
//   3. Nothing is published until every part is in, and not at all when the
//      page was cancelled meanwhile: a load that stopped because the page
//      went away is not a failure to show.

/// The signed-in user's account.
struct Account: Equatable, Sendable, CustomStringConvertible {
  var name: String
  var description: String { "Account(\(name))" }
}

/// One message in the inbox.
struct Message: Equatable, Sendable, CustomStringConvertible {
  var subject: String
  var description: String { subject }
}

/// One payment card.
struct Card: Equatable, Sendable, CustomStringConvertible {
  var last4: String
  var description: String { "•••• \(last4)" }
}

/// What one optional section of the page shows.
enum Section<Value: Equatable & Sendable>: Equatable, Sendable {
  /// Not loaded yet.
  case loading
  /// Loaded: the value, which may be empty.
  case loaded(Value)
  /// It could not load: the section says so, over what was cached, if anything.
  case failed(cached: Value?)
}

/// The three independent backend calls behind the page.
protocol AccountService: Sendable {
  func loadAccount() async throws -> Account
  func loadMessages() async throws -> [Message]
  func loadCards() async throws -> [Card]
}

/// The state behind the account page.
@MainActor
final class AccountPage {
  /// The account; nil until the page has loaded.
  private(set) var account: Account?
  private(set) var messages: Section<[Message]> = .loading
  private(set) var cards: Section<[Card]> = .loading

  private let service: any AccountService
  /// What the app kept from the last visit, shown when a section fails.
  private let cachedMessages: [Message]?
  private let cachedCards: [Card]?

  init(service: any AccountService, cachedMessages: [Message]? = nil, cachedCards: [Card]? = nil) {
    self.service = service
    self.cachedMessages = cachedMessages
    self.cachedCards = cachedCards
  }

  /// Loads the page. Throws the account's error, or `CancellationError`; an
  /// optional section's error shows in that section and is not thrown.
  func load() async throws {
    let (service, cachedMessages, cachedCards) = (self.service, self.cachedMessages, self.cachedCards)
    async let account = service.loadAccount()
    async let messages = section(cached: cachedMessages) { try await service.loadMessages() }
    async let cards = section(cached: cachedCards) { try await service.loadCards() }
    let loadedAccount = try await account
    let (loadedMessages, loadedCards) = await (messages, cards)
    try Task.checkCancellation()
    self.account = loadedAccount
    self.messages = loadedMessages
    self.cards = loadedCards
  }
}

/// An optional section's load: its value, or `.failed` over `cached`.
private func section<Value: Equatable & Sendable>(
  cached: Value?, _ load: @Sendable () async throws -> Value
) async -> Section<Value> {
  do {
    return .loaded(try await load())
  } catch {
    return .failed(cached: cached)
  }
}
