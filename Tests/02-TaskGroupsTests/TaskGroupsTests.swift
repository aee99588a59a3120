import ConcurrencyTestKit
import Testing

@testable import TaskGroups

private struct Offline: Error, Equatable, CustomStringConvertible {
  var description: String { "Offline" }
}

// MARK: - Thumbnails

private struct FakeThumbnails: ThumbnailService {
  let gate: CallGate<Int, Thumbnail>
  func thumbnail(for productID: Int) async throws -> Thumbnail { try await gate.call(productID) }
}

private func thumbnail(of id: Int) -> Thumbnail { Thumbnail(pixels: "product \(id)") }

@Suite("02 Task groups: thumbnails", .exercising("loadThumbnails(for:from:)"))
struct ThumbnailTests {
  /// `loadThumbnails(for: [1, 2, 3])` on a step executor: after `runUntilIdle()`
  /// every download it starts at once has started.
  private struct Load {
    let events = EventLog()
    let executor: StepExecutor
    let gate: CallGate<Int, Thumbnail>
    let load: Spawned<[Int: Thumbnail]>

    init() {
      executor = StepExecutor(events: events)
      let gate = CallGate<Int, Thumbnail>("thumbnail", events: events)
      self.gate = gate
      load = executor.spawn("loadThumbnails") {
        try await loadThumbnails(for: [1, 2, 3], from: FakeThumbnails(gate: gate))
      }
      executor.runUntilIdle()
    }

    func answer(_ index: Int) {
      gate.succeed(index, with: thumbnail(of: gate.arguments[index]))
      executor.runUntilIdle()
    }

    func finish(sourceLocation: SourceLocation = #_sourceLocation) async throws {
      try await executor.run(
        until: { load.isFinished }, "loadThumbnails to finish", sourceLocation: sourceLocation)
    }
  }

  @Test("Loads every thumbnail at the same time")
  func loadsAtOnce() async throws {
    let load = Load()
    load.events.expect(
      Set(load.gate.arguments), equals: [1, 2, 3], "All three downloads are in flight at once")
    for index in 0..<load.gate.callCount { load.answer(index) }
    try await load.finish()
    load.events.expect(load.load.value?.count, equals: 3, "Three thumbnails come back")
  }

  @Test("Each product gets its own thumbnail, whatever order the downloads finish in")
  func ownThumbnail() async throws {
    let load = Load()
    try load.events.require(load.gate.callCount, equals: 3, "All three downloads are in flight")
    // The last product's download finishes first, the first product's last.
    for index in (0..<3).sorted(by: { load.gate.arguments[$0] > load.gate.arguments[$1] }) {
      load.answer(index)
    }
    try await load.finish()
    load.events.expect(
      load.load.value, equals: [1: thumbnail(of: 1), 2: thumbnail(of: 2), 3: thumbnail(of: 3)],
      "Every product id maps to its own thumbnail")
  }

  @Test("No products: returns at once without calling the service")
  func noProducts() async throws {
    let events = EventLog()
    let gate = CallGate<Int, Thumbnail>("thumbnail", events: events)
    let result = try await events.withinTimeLimit("loadThumbnails(for: [])") {
      try await loadThumbnails(for: [], from: FakeThumbnails(gate: gate))
    }
    events.expect(result, equals: [:], "The result is empty")
    events.expect(gate.callCount, equals: 0, "The service is not called")
  }

  @Test("A failed download fails the load and cancels the other downloads")
  func failureCancelsOthers() async throws {
    let load = Load()
    try load.events.require(load.gate.callCount, equals: 3, "All three downloads are in flight")
    load.gate.fail(1, with: Offline())
    try await load.finish()
    load.events.expect(
      load.load.error is Offline, "The download's error is thrown",
      actual: "\(String(describing: load.load.result))")
    load.events.expect(
      [0, 2].allSatisfy(load.gate.wasCancelled), "The other downloads are cancelled",
      actual: "cancelled: \([0, 2].filter(load.gate.wasCancelled))")
  }
}

// MARK: - Resizing with a concurrency limit

private struct FakeTransformer: ImageTransformer {
  let gate: CallGate<String, Image>
  func resize(_ image: Image, maxWidth: Int) async throws -> Image { try await gate.call(image.name) }
}

private let photos = (1...6).map { Image(name: "photo\($0)", width: 4000) }
private func resized(_ name: String) -> Image { Image(name: name, width: 1024) }

/// Runs `resizeAll` on a step executor, answering the newest waiting resize
/// each step, and records how many resizes were in flight after every step.
private func resizeStepByStep(
  _ images: [Image], maxConcurrent: Int, events: EventLog
) async throws -> (result: Spawned<[Image]>, inFlight: [Int]) {
  let executor = StepExecutor(events: events)
  let gate = CallGate<String, Image>("resize", events: events)
  let task = executor.spawn("resizeAll") {
    try await resizeAll(
      images, maxWidth: 1024, maxConcurrent: maxConcurrent, using: FakeTransformer(gate: gate))
  }
  var inFlight: [Int] = []
  for _ in 0...images.count {
    executor.runUntilIdle()
    guard !task.isFinished else { break }
    inFlight.append(gate.waitingCalls.count)
    events.record(.note("in flight: \(gate.waitingCalls.count)", in: .code))
    guard let newest = gate.waitingCalls.last else { break }
    gate.succeed(newest, with: resized(gate.arguments[newest]))
  }
  try await executor.run(until: { task.isFinished }, "resizeAll to finish")
  return (task, inFlight)
}

@Suite("02 Task groups: a sliding window", .exercising("resizeAll(_:maxWidth:maxConcurrent:using:)"))
struct ResizeTests {
  @Test("Never runs more than maxConcurrent resizes at once")
  func neverMoreThanTheLimit() async throws {
    let events = EventLog()
    let (_, inFlight) = try await resizeStepByStep(photos, maxConcurrent: 2, events: events)
    events.expect(
      inFlight.allSatisfy { $0 <= 2 }, "At most 2 of the 6 resizes are in flight at any moment",
      actual: "in flight after each step: \(inFlight)")
  }

  @Test("Keeps maxConcurrent resizes running while images are left")
  func keepsTheWindowFull() async throws {
    let events = EventLog()
    let (_, inFlight) = try await resizeStepByStep(photos, maxConcurrent: 2, events: events)
    events.expect(
      inFlight, equals: [2, 2, 2, 2, 2, 1],
      "A new resize starts as soon as one finishes, 2 at a time until the last one")
  }

  @Test("Returns the resized images in input order")
  func inputOrder() async throws {
    let events = EventLog()
    let (task, _) = try await resizeStepByStep(photos, maxConcurrent: 3, events: events)
    events.expect(task.value, equals: photos.map { resized($0.name) }, "The results are in input order")
  }

  @Test("No images: returns at once")
  func noImages() async throws {
    let events = EventLog()
    let gate = CallGate<String, Image>("resize", events: events)
    let result = try await events.withinTimeLimit("resizeAll([])") {
      try await resizeAll([], maxWidth: 1024, maxConcurrent: 2, using: FakeTransformer(gate: gate))
    }
    events.expect(result, equals: [], "The result is empty")
    events.expect(gate.callCount, equals: 0, "Nothing is resized")
  }

  @Test("A limit below 1 is rejected with ResizeError.invalidConcurrencyLimit")
  func invalidLimit() async throws {
    let events = EventLog()
    let executor = StepExecutor(events: events)
    let gate = CallGate<String, Image>("resize", events: events)
    let task = executor.spawn("resizeAll with maxConcurrent 0") {
      try await resizeAll(photos, maxWidth: 1024, maxConcurrent: 0, using: FakeTransformer(gate: gate))
    }
    executor.runUntilIdle()
    try events.require(
      task.isFinished, "resizeAll(maxConcurrent: 0) ends at once",
      actual: "it is still waiting for \(gate.waitingCalls.count) resizes")
    events.expect(
      task.error as? ResizeError, equals: .invalidConcurrencyLimit(0), "It throws invalidConcurrencyLimit(0)")
    events.expect(gate.callCount, equals: 0, "Nothing is resized")
  }
}

// MARK: - The fastest mirror

private struct FakeMirrors: MirrorClient {
  let gate: CallGate<String, String>
  func download(from mirror: String) async throws -> String { try await gate.call(mirror) }
}

private let mirrors = ["eu", "us", "asia"]

/// Downloads from the three mirrors in a task that runs only when the check
/// runs the executor: every download has started after `runUntilIdle()`.
private struct MirrorRace {
  let events = EventLog()
  let executor: StepExecutor
  let gate: CallGate<String, String>
  let download: Spawned<String>

  init(mirrors: [String] = mirrors) {
    executor = StepExecutor(events: events)
    let gate = CallGate<String, String>("download", events: events)
    self.gate = gate
    download = executor.spawn("downloadFromFastestMirror") {
      try await downloadFromFastestMirror(mirrors, using: FakeMirrors(gate: gate))
    }
    executor.runUntilIdle()
  }

  /// The call index of `mirror`'s download.
  func call(_ mirror: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
    try #require(
      gate.arguments.firstIndex(of: mirror), "no download from \(mirror)", sourceLocation: sourceLocation)
  }

  /// Runs until the download finishes and says how it ended.
  func outcome(sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    try await executor.run(
      until: { download.isFinished }, "downloadFromFastestMirror to finish", sourceLocation: sourceLocation)
    switch download.result {
    case .success(let file): return "returned \(file)"
    case .failure(MirrorError.allFailed(let failed)): return "threw allFailed(\(failed))"
    case .failure(let error as MirrorError): return "threw \(error)"
    case .failure(let error): return "threw \(show(error))"
    case nil: return "still running"
    }
  }
}

@Suite("02 Task groups: the fastest mirror", .exercising("downloadFromFastestMirror(_:using:)"))
struct FastestMirrorTests {
  @Test("Returns the first successful download without waiting for the slower mirrors")
  func firstSuccessWins() async throws {
    let race = MirrorRace()
    try race.events.require(race.gate.callCount, equals: 3, "All three mirrors are asked at once")
    race.gate.succeed(try race.call("asia"), with: "file from asia")
    race.events.expect(
      try await race.outcome(), equals: "returned file from asia",
      "The first mirror to deliver wins, while the others are still downloading")
  }

  @Test("Cancels the slower mirrors once one has succeeded")
  func losersAreCancelled() async throws {
    let race = MirrorRace()
    race.gate.succeed(try race.call("us"), with: "file from us")
    race.executor.runUntilIdle()
    let losers = [try race.call("eu"), try race.call("asia")]
    race.events.expect(
      losers.allSatisfy(race.gate.wasCancelled), "eu and asia are cancelled as soon as us has delivered",
      actual: "cancelled: \(losers.filter(race.gate.wasCancelled).map { race.gate.arguments[$0] })")
    race.events.expect(try await race.outcome(), equals: "returned file from us", "us wins")
  }

  @Test("Skips a mirror that fails and returns the next success")
  func failuresAreSkipped() async throws {
    let race = MirrorRace()
    race.gate.fail(try race.call("eu"), with: Offline())
    race.executor.runUntilIdle()
    try race.events.require(
      !race.download.isFinished && !race.gate.wasCancelled(try race.call("us")),
      "One mirror failing neither ends the download nor cancels the other mirrors",
      actual: race.download.isFinished ? "the download ended" : "us was cancelled")
    race.gate.succeed(try race.call("us"), with: "file from us")
    race.events.expect(
      try await race.outcome(), equals: "returned file from us", "The failed mirror is skipped")
  }

  @Test("Throws allFailed, naming every mirror in the order they failed, when all of them fail")
  func allFail() async throws {
    let race = MirrorRace()
    // Not the order they were asked in: the error lists them as they failed.
    let failing = Array(race.gate.arguments.reversed())
    for mirror in failing {
      race.gate.fail(try race.call(mirror), with: Offline())
      race.executor.runUntilIdle()
    }
    race.events.expect(
      try await race.outcome(), equals: "threw allFailed(\(failing))",
      "The error names every mirror, in the order they failed")
  }

  @Test("Cancelling the download cancels every mirror and throws CancellationError")
  func cancellingTheDownload() async throws {
    let race = MirrorRace()
    try race.events.require(race.gate.callCount, equals: 3, "All three mirrors are asked at once")
    race.events.record(.cancel("the caller cancels the download", from: .whoeverCalled, label: "cancel"))
    race.download.cancel()
    let outcome = try await race.outcome()
    race.events.expect(
      (0..<3).filter(race.gate.wasCancelled).map { race.gate.arguments[$0] }.sorted(),
      equals: ["asia", "eu", "us"], "Every mirror's download is cancelled")
    race.events.expect(
      outcome, equals: "threw CancellationError()",
      "The download ends with CancellationError: the mirrors were stopped, they did not fail")
  }

  @Test("No mirrors is a clear error")
  func noMirrors() async throws {
    let race = MirrorRace(mirrors: [])
    race.events.expect(try await race.outcome(), equals: "threw noMirrors", "noMirrors is thrown")
    race.events.expect(race.gate.callCount, equals: 0, "No download is started")
  }
}

// MARK: - A deadline

/// `withDeadline(2s)` around an operation the check answers, on a test clock
/// only the check moves, in a task that runs only when the check runs the
/// executor: after `runUntilIdle()`, the operation has been called and the
/// timer sleeps.
private struct DeadlineRace {
  let events = EventLog()
  let executor: StepExecutor
  let clock: TestClock
  let gate: CallGate<Void, String>
  let call: Spawned<String>

  init(operationIgnoresCancellation: Bool = false) {
    executor = StepExecutor(events: events)
    let clock = TestClock(events: events)
    self.clock = clock
    let gate = CallGate<Void, String>(
      "operation", events: events, ignoresCancellation: operationIgnoresCancellation)
    self.gate = gate
    events.record(
      .call(
        "caller 1 calls withDeadline(2s) around operation()", from: .caller("caller 1"),
        label: "calls withDeadline(2s) around operation()"))
    call = executor.spawn("caller 1", answering: .caller("caller 1")) {
      try await withDeadline(.seconds(2), on: clock) { try await gate.call(()) }
    }
    executor.runUntilIdle()
  }

  /// Waits until the operation has been called and the timer sleeps.
  func started(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await gate.waitForCall(0, sourceLocation: sourceLocation)
    try await clock.waitForSleepers(1, sourceLocation: sourceLocation)
  }

  /// Runs until the call finishes and says how it ended.
  func outcome(sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    try await executor.run(
      until: { call.isFinished }, "withDeadline to return", sourceLocation: sourceLocation)
    switch call.result {
    case .success(let value): return "returned \(value)"
    case .failure(let error): return "threw \(show(error))"
    case nil: return "still running"
    }
  }
}

@Suite("02 Task groups: a deadline", .exercising("withDeadline(_:on:operation:)"))
struct DeadlineTests {
  @Test("Returns the operation's value as soon as it arrives, and cancels the timer")
  func valueFirst() async throws {
    let race = DeadlineRace()
    try await race.started()
    race.gate.succeed(0, with: "report")
    race.events.expect(
      try await race.outcome(), equals: "returned report",
      "withDeadline returns the value without waiting for the deadline")
    race.events.expect(race.clock.sleeperCount, equals: 0, "The timer's sleep is cancelled")
  }

  @Test("Throws DeadlineExceeded once the deadline passes, and cancels the operation")
  func deadlineFirst() async throws {
    let race = DeadlineRace()
    try await race.started()
    race.clock.advance(by: .seconds(2))
    race.executor.runUntilIdle()
    race.events.expect(race.gate.wasCancelled(0), "The operation is cancelled at the deadline")
    race.events.expect(
      try await race.outcome(), equals: "threw DeadlineExceeded()", "withDeadline throws DeadlineExceeded")
  }

  @Test("Throws the operation's own error when it fails before the deadline")
  func errorFirst() async throws {
    let race = DeadlineRace()
    try await race.started()
    race.gate.fail(0, with: Offline())
    race.events.expect(
      try await race.outcome(), equals: "threw Offline", "The operation's error, not a deadline")
    race.events.expect(race.clock.sleeperCount, equals: 0, "The timer's sleep is cancelled")
  }

  @Test("Counts the deadline on the clock it is given: not a moment before")
  func notBefore() async throws {
    let race = DeadlineRace()
    try await race.started()
    race.clock.advance(by: .milliseconds(1999))
    race.executor.runUntilIdle()
    try race.events.require(
      !race.call.isFinished && !race.gate.wasCancelled(0),
      "At t=1.999s the operation still runs and withDeadline has not returned",
      actual: race.call.isFinished ? "withDeadline returned" : "the operation was cancelled")
    race.gate.succeed(0, with: "report")
    race.events.expect(
      try await race.outcome(), equals: "returned report", "A value just in time is returned")
  }

  @Test(
    "An operation that ignores cancellation still ends before withDeadline throws: nothing outlives the call")
  func structuredToTheEnd() async throws {
    let race = DeadlineRace(operationIgnoresCancellation: true)
    try await race.started()
    race.clock.advance(by: .seconds(2))
    race.executor.runUntilIdle()
    try race.events.require(
      !race.call.isFinished, "withDeadline waits for the cancelled operation to end",
      actual: "it returned while the operation was still running")
    race.gate.succeed(0, with: "late report")
    race.events.expect(
      try await race.outcome(), equals: "threw DeadlineExceeded()",
      "The deadline passed first: a late value is not returned")
  }
}
