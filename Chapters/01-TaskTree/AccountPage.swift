// Chapter 01: Task tree (exercise 2 of 2)
//
// Goal: `AccountPage.load()` loads the account, the messages and the cards at
// the same time. The account is required: its error fails the page at once,
// cancels the other two loads and shows nothing. The messages and the cards
// are optional: each one's error shows in its own section, over what the page
// had cached, while the rest of the page loads. An empty inbox and a failed
// one never look the same, and a cancelled page shows no section as failed.
//
// Run `swift run workshop check 01` to see which behaviours still fail.

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
    // TODO: Every error becomes "nothing": a failed inbox shows as an empty
    // one, and a failed account as a page with no account that waits for
    // the other loads anyway.
    async let account = try? await service.loadAccount()
    async let messages = (try? await service.loadMessages()) ?? []
    async let cards = (try? await service.loadCards()) ?? []
    self.account = await account
    self.messages = .loaded(await messages)
    self.cards = .loaded(await cards)
  }
}
