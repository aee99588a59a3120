// Chapter 13: Testing concurrency. The component under test.
//
// This is correct code: read it, don't change it. Your checks, in
// `Chapters/13-TestingConcurrency/`, are graded against this file and against
// broken versions of it that you never see.
//
// `UsernameField` is the username box of a sign-up form. As the user types,
// it tells them whether the name is free: it waits for a pause in typing (the
// debounce), then asks the server. The same shape as chapter 04's search.

import Foundation

/// What the field shows under the username.
public enum Availability: Equatable, Sendable, CustomStringConvertible {
  /// Nothing typed.
  case idle
  /// Fewer than three characters: not worth asking the server.
  case tooShort
  /// Waiting for a pause in typing, then for the server.
  case checking
  case available
  case taken
  /// The server could not answer; the message is shown as it is.
  case failed(String)

  public var description: String {
    switch self {
    case .idle: "idle"
    case .tooShort: "tooShort"
    case .checking: "checking"
    case .available: "available"
    case .taken: "taken"
    case .failed(let message): "failed(\(String(reflecting: message)))"
    }
  }
}

/// The sign-up server.
public protocol UsernameService: Sendable {
  /// Whether nobody has `name` yet. Throws `CancellationError` when the
  /// calling task is cancelled (a real network call may also answer anyway).
  func isAvailable(_ name: String) async throws -> Bool
}

/// The username box of the sign-up form.
///
/// - Empty (after trimming spaces): `.idle`, at once. Shorter than three
///   characters: `.tooShort`, at once. Neither asks the server.
/// - Otherwise `.checking` at once; once `debounce` has passed with no
///   further change, the server is asked, and the field shows `.available`,
///   `.taken` or `.failed(message)`.
/// - A change cancels the check before it (its wait, or its server call).
///   Only the latest name's answer is ever shown, even when the server
///   answers an older call late; a cancelled check is not a failure.
/// - After `stop()`, nothing changes the field any more.
@MainActor
public final class UsernameField {
  /// What the field shows now.
  public private(set) var availability: Availability = .idle

  private let service: any UsernameService
  private let clock: any Clock<Duration>
  private let debounce: Duration
  private var check: Task<Void, Never>?
  /// Bumped by every change and by `stop()`: a check updates the field only
  /// while the revision it started with is still the current one.
  private var revision = 0

  /// - Parameter clock: the app passes `ContinuousClock()`; checks pass a
  ///   clock they control.
  public init(
    service: any UsernameService,
    clock: any Clock<Duration>,
    debounce: Duration = .milliseconds(300)
  ) {
    self.service = service
    self.clock = clock
    self.debounce = debounce
  }

  /// Called on every change with the whole text of the box.
  ///
  /// Returns the task that handles this change; the form ignores it, and a
  /// check can await it to know this change's work is over.
  @discardableResult
  public func nameDidChange(_ text: String) -> Task<Void, Never> {
    check?.cancel()
    revision &+= 1
    let myRevision = revision
    let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if name.isEmpty {
      availability = .idle
    } else if name.count < 3 {
      availability = .tooShort
    } else {
      availability = .checking
    }
    let task = Task {
      guard name.count >= 3 else { return }
      do {
        try await clock.sleep(for: debounce)
        let isAvailable = try await service.isAvailable(name)
        guard myRevision == revision else { return }
        availability = isAvailable ? .available : .taken
      } catch is CancellationError {
        // Replaced by a newer change, or the form closed: not a failure.
      } catch {
        guard myRevision == revision else { return }
        availability = .failed("Could not check the name: \(error)")
      }
    }
    check = task
    return task
  }

  /// Called when the form closes: nothing may change the field afterwards.
  public func stop() {
    revision &+= 1
    check?.cancel()
    check = nil
  }
}
