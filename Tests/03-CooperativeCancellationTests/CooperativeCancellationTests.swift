import ConcurrencyTestKit
import Synchronization
import Testing

@testable import CooperativeCancellation

// MARK: - The checksum job

/// A file of `count` chunks that logs every read, and can cancel the job
/// reading it at a chosen chunk.
private final class FakeFile: ChunkSource, Sendable {
  let chunkCount: Int
  let events: EventLog
  private let state = Mutex<(reads: [Int], job: Spawned<UInt32>?, cancelAt: Int?)>(([], nil, nil))

  init(chunks: Int, events: EventLog, cancelJobWhileReading index: Int? = nil) {
    chunkCount = chunks
    self.events = events
    state.withLock { $0.cancelAt = index }
  }

  /// The job to cancel; set before it runs.
  func attach(_ job: Spawned<UInt32>) { state.withLock { $0.job = job } }

  var reads: [Int] { state.withLock { $0.reads } }

  func chunk(at index: Int) -> [UInt8] {
    let job = state.withLock { state -> Spawned<UInt32>? in
      state.reads.append(index)
      return state.cancelAt == index ? state.job : nil
    }
    events.record(.note("read chunk \(index)", in: .code))
    if let job {
      events.record(RecordedEvent("job cancelled while reading chunk \(index)", kind: .cancel, from: .code))
      job.cancel()
    }
    return Self.bytes(of: index)
  }

  static func bytes(of index: Int) -> [UInt8] {
    (0..<64).map { UInt8((index * 31 + $0 * 7) % 251) }
  }
}

/// Adler-32 of all chunks, computed the plain way.
private func expectedChecksum(chunks: Int) -> UInt32 {
  var a: UInt32 = 1
  var b: UInt32 = 0
  for byte in (0..<chunks).flatMap(FakeFile.bytes) {
    a = (a + UInt32(byte)) % 65521
    b = (b + a) % 65521
  }
  return (b << 16) | a
}

private func describe(_ result: Result<UInt32, any Error>?) -> String {
  switch result {
  case nil: "still running"
  case .success(let value): "returned \(value)"
  case .failure(let error): "threw \(show(error))"
  }
}

@Suite("03 Cooperative cancellation: the checksum job", .exercising("checksum(of:)"))
struct ChecksumTests {
  @Test("Computes the checksum of every chunk when nobody cancels")
  func completes() async throws {
    let events = EventLog()
    let executor = StepExecutor(events: events)
    let file = FakeFile(chunks: 10, events: events)
    let job = executor.spawn("checksum job") { try await checksum(of: file) }
    try await executor.run(until: { job.isFinished }, "the job to finish")
    events.expect(
      describe(job.result), equals: "returned \(expectedChecksum(chunks: 10))", "The checksum is right")
    events.expect(file.reads, equals: Array(0..<10), "Every chunk is read once, in order")
  }

  /// Every chunk but the last, where the job has nothing left to read: a loop
  /// that skips the check before any chunk reads that chunk after a cancel
  /// that arrived while it read the one before.
  @Test(
    "A job cancelled while it runs stops within one chunk and throws CancellationError",
    arguments: 0..<9)
  func stopsWithinOneChunk(cancelWhileReading chunk: Int) async throws {
    let events = EventLog()
    let executor = StepExecutor(events: events)
    let file = FakeFile(chunks: 10, events: events, cancelJobWhileReading: chunk)
    let job = executor.spawn("checksum job") { try await checksum(of: file) }
    file.attach(job)
    try await executor.run(until: { job.isFinished }, "the job to finish")
    let readsAfterCancel = file.reads.filter { $0 > chunk }
    events.expect(
      readsAfterCancel, equals: [],
      "It finishes chunk \(chunk), the one it was reading when cancelled, and reads no other")
    events.expect(
      describe(job.result), equals: "threw CancellationError()", "The job throws CancellationError")
  }

  @Test("A job cancelled before it starts reads nothing")
  func cancelledBeforeStart() async throws {
    let events = EventLog()
    let executor = StepExecutor(events: events)
    let file = FakeFile(chunks: 10, events: events)
    let job = executor.spawn("checksum job") { try await checksum(of: file) }
    job.cancel()
    try await executor.run(until: { job.isFinished }, "the job to finish")
    events.expect(file.reads, equals: [], "No chunk is read")
    events.expect(
      describe(job.result), equals: "threw CancellationError()", "The job throws CancellationError")
  }
}

// MARK: - The profile refresh

private final class FakeCache: ProfileCache {
  let events: EventLog
  init(events: EventLog) { self.events = events }
  func store(_ profile: Profile) { events.record(.call("cache.store(\(profile))", to: .service("cache"))) }
}

private final class FakeAnalytics: Analytics {
  let events: EventLog
  init(events: EventLog) { self.events = events }
  func track(_ event: String) { events.record(.call("analytics.track(\(event))", to: .service("analytics"))) }
}

private struct FakeAPI: ProfileAPI {
  let gate: CallGate<Void, Profile>
  func fetchProfile() async throws -> Profile { try await gate.call(()) }
}

private let ada = Profile(name: "Ada")
private func isSideEffect(_ event: String) -> Bool {
  event.hasPrefix("cache.") || event.hasPrefix("analytics.")
}

/// A profile screen with a gated API and logging cache and analytics.
@MainActor
private struct ProfileScreen {
  let events = EventLog()
  let api: CallGate<Void, Profile>
  let refresher: ProfileRefresher

  init(apiIgnoresCancellation: Bool = false) {
    api = CallGate("fetchProfile", events: events, ignoresCancellation: apiIgnoresCancellation)
    refresher = ProfileRefresher(
      api: FakeAPI(gate: api), cache: FakeCache(events: events), analytics: FakeAnalytics(events: events))
  }

  func startRefresh() -> Task<Void, Never> {
    let refresher = self.refresher
    return Task { await refresher.refresh() }
  }

  func finish(_ task: Task<Void, Never>, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await events.withinTimeLimit("refresh()", sourceLocation: sourceLocation) { await task.value }
    events.record(.publish("state = \(refresher.state)", to: .caller("screen"), label: "\(refresher.state)"))
  }

  var sideEffectsRecorded: [String] { events.sentences.filter(isSideEffect) }
}

@MainActor
@Suite("03 Cooperative cancellation: the profile refresh", .exercising("ProfileRefresher.refresh()"))
struct ProfileRefreshTests {
  @Test("Caches, tracks and shows the profile, in that order")
  func happyPath() async throws {
    let screen = ProfileScreen()
    let refresh = screen.startRefresh()
    try await screen.api.waitForCall(0)
    screen.api.succeed(0, with: ada)
    try await screen.finish(refresh)
    screen.events.expect(
      screen.sideEffectsRecorded,
      equals: ["cache.store(Profile(Ada))", "analytics.track(profile_refreshed)"],
      "The cache is written, then the refresh is tracked")
    screen.events.expect(screen.refresher.state, equals: .loaded(ada), "The profile is shown")
  }

  @Test("A refresh cancelled while fetching writes no cache, no analytics and no state")
  func cancelledRefreshLeavesNoTrace() async throws {
    let screen = ProfileScreen(apiIgnoresCancellation: true)
    let refresh = screen.startRefresh()
    try await screen.api.waitForCall(0)
    screen.events.record(.cancel("the screen cancels the refresh", from: .caller("screen"), label: "cancel"))
    refresh.cancel()
    try await screen.api.waitForCancellation(of: 0)
    screen.api.succeed(0, with: ada)
    try await screen.finish(refresh)
    screen.events.expect(screen.sideEffectsRecorded, equals: [], "No cache write and no analytics event")
    screen.events.expect(screen.refresher.state, equals: .idle, "The state does not change")
  }

  @Test("Cancellation is neither shown nor counted as an error")
  func cancellationIsNotAnError() async throws {
    let screen = ProfileScreen()
    let refresh = screen.startRefresh()
    try await screen.api.waitForCall(0)
    refresh.cancel()
    try await screen.finish(refresh)
    screen.events.expect(screen.refresher.state, equals: .idle, "No failure is shown")
    screen.events.expect(screen.sideEffectsRecorded, equals: [], "No error is counted")
  }

  @Test("A cancelled refresh keeps the profile already shown")
  func cancelledRefreshKeepsTheProfile() async throws {
    let screen = ProfileScreen()
    let first = screen.startRefresh()
    try await screen.api.waitForCall(0)
    screen.api.succeed(0, with: ada)
    try await screen.finish(first)
    try screen.events.require(
      screen.refresher.state, equals: .loaded(ada), "The first refresh shows the profile")
    let shownBefore = screen.sideEffectsRecorded
    let second = screen.startRefresh()
    try await screen.api.waitForCall(1)
    screen.events.record(
      .cancel("the screen cancels the second refresh", from: .caller("screen"), label: "cancel"))
    second.cancel()
    try await screen.finish(second)
    screen.events.expect(
      screen.refresher.state, equals: .loaded(ada), "The profile stays on screen: a cancel changes nothing")
    screen.events.expect(
      screen.sideEffectsRecorded, equals: shownBefore,
      "The cancelled refresh writes no cache and no analytics")
  }

  @Test("A real error is shown and counted")
  func realErrorIsShown() async throws {
    let screen = ProfileScreen()
    let refresh = screen.startRefresh()
    try await screen.api.waitForCall(0)
    screen.api.fail(0, with: LegacySDKError.timedOut)
    try await screen.finish(refresh)
    screen.events.expect(
      screen.sideEffectsRecorded, equals: ["analytics.track(profile_refresh_failed)"],
      "The failure is counted")
    if case .failed = screen.refresher.state {
    } else {
      screen.events.expect(false, "The failure is shown", actual: "state is \(screen.refresher.state)")
    }
  }

  @Test("The SDK's own 'cancelled' error becomes CancellationError", .exercising("ProfileLoader.load()"))
  func legacyCancelIsNormalised() async throws {
    let events = EventLog()
    let api = CallGate<Void, Profile>("fetchProfile", events: events)
    let load = Task { try await ProfileLoader(api: FakeAPI(gate: api)).load() }
    try await api.waitForCall(0)
    api.fail(0, with: LegacySDKError.cancelled)
    let outcome = try await events.withinTimeLimit("load()") { () -> String in
      do {
        return "returned \(try await load.value)"
      } catch {
        return "threw \(show(error))"
      }
    }
    events.expect(outcome, equals: "threw CancellationError()", "load() throws CancellationError")
  }

  @Test("The SDK's own 'cancelled' error is not shown as a failure", .exercising("ProfileLoader.load()"))
  func legacyCancelIsNotShown() async throws {
    let screen = ProfileScreen()
    let refresh = screen.startRefresh()
    try await screen.api.waitForCall(0)
    screen.api.fail(0, with: LegacySDKError.cancelled)
    try await screen.finish(refresh)
    screen.events.expect(screen.refresher.state, equals: .idle, "No failure is shown")
    screen.events.expect(screen.sideEffectsRecorded, equals: [], "No error is counted")
  }
}
