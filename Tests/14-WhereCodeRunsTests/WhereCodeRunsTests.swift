import ConcurrencyTestKit
import Synchronization
import Testing

@testable import WhereCodeRuns

// These checks are compiled with SwiftPM's defaults, not as the chapter is:
// they are not on the main actor, so the learner's code decides where it runs.

/// What one row's decoding saw of where, and in which task, it ran.
private struct RowContext: Sendable {
  var row: Int
  var onMainActor: Bool
  var trace: String?
  var priority: TaskPriority
}

/// A decoder that records, for each row, whether it ran on the main actor
/// and what it saw of its task, and that can cancel the screen's task while
/// it decodes a chosen row, as a user leaving at that moment would.
private final class FakeDecoder: RowDecoder {
  let events: EventLog
  private let state = Mutex<(seen: [RowContext], task: Task<Void, Never>?, cancelAt: Int?)>(([], nil, nil))

  init(events: EventLog, cancelWhileDecoding row: Int? = nil) {
    self.events = events
    state.withLock { $0.cancelAt = row }
  }

  /// The screen's task, for a decoder that cancels it; set before it runs.
  func attach(_ task: Task<Void, Never>) { state.withLock { $0.task = task } }

  /// What each row's decoding saw, in the order the rows were decoded.
  var contexts: [RowContext] { state.withLock { $0.seen } }

  func decodeRow(_ row: Int, of photo: Photo) -> [UInt8] {
    let context = RowContext(
      row: row, onMainActor: MainActorWitness.isRunningOnMainActor, trace: Trace.id,
      priority: Task.currentPriority)
    let task = state.withLock { state -> Task<Void, Never>? in
      state.seen.append(context)
      return state.cancelAt == row ? state.task : nil
    }
    events.record(
      .call(
        "decoder.decodeRow(\(row)) called, \(context.onMainActor ? "ON THE MAIN ACTOR" : "off the main actor"),"
          + " trace id \(show(context.trace)), priority \(show(context.priority))",
        to: .service("decoder"), label: "decoder.decodeRow(\(row))"))
    if let task {
      events.record(
        .cancel(
          "the screen's task is cancelled (the user left) while row \(row) decodes", from: .caller("screen"),
          label: "cancel"))
      task.cancel()
    }
    return Self.pixels(row)
  }

  static func pixels(_ row: Int) -> [UInt8] { (0..<8).map { UInt8((row * 37 + $0 * 11) % 251) } }
}

private let sunset = Photo(name: "sunset.jpg", rowCount: 4)
private let sunsetThumbnail = Thumbnail(rows: (0..<4).map(FakeDecoder.pixels))

/// The view holding the screen's model: on the main actor, as a SwiftUI
/// view is, whatever the learner made of `PhotoScreen`'s isolation.
@MainActor
private final class PhotoView {
  let model: PhotoScreen
  init(decoder: FakeDecoder) { model = PhotoScreen(decoder: decoder) }
  func task(_ photo: Photo) async { await model.open(photo) }
  var thumbnail: Thumbnail? { model.thumbnail }
  var isDecoding: Bool { model.isDecoding }
}

/// A photo screen, its decoder, and the task the view runs `open(_:)` in.
private struct Scenario {
  let events = EventLog()
  let decoder: FakeDecoder
  let screen: PhotoView
  let thread = ThreadExecutor(name: "pool stand-in")
  /// Opened when the screen's task has run `open(_:)` to its end.
  let finished = Latch()

  init(cancelWhileDecoding row: Int? = nil) async {
    decoder = FakeDecoder(events: events, cancelWhileDecoding: row)
    screen = await PhotoView(decoder: decoder)
  }

  /// Opens `photo` as SwiftUI's `.task` would, in a task of its own that
  /// calls the main-actor `open(_:)`; here with a trace id bound and a low
  /// priority, so that both can be told apart from the check's own.
  ///
  /// The task prefers a task executor with one thread (SE-0417): whatever
  /// leaves the main actor in it, and its child tasks, runs there one job at
  /// a time in the order it was started, instead of on as many threads as
  /// the machine has. So rows decoded in parallel (a task group) arrive in
  /// the same order on every machine, and the verdict does not depend on the
  /// number of cores. Code that leaves the task (`Task.detached`) runs on
  /// the shared pool as usual.
  func open(_ photo: Photo = sunset, trace: String = "trace-14") -> Task<Void, Never> {
    events.record(.call("screen calls open(\(photo))", from: .caller("screen"), label: "open(\(photo))"))
    // The task waits until the decoder knows it, so that the decoder can
    // cancel it at the row the check chose.
    let known = Latch()
    let task = Trace.$id.withValue(trace) {
      Task(executorPreference: thread, priority: .low) { [screen, finished] in
        await known.wait()
        await screen.task(photo)
        finished.open()
      }
    }
    decoder.attach(task)
    known.open()
    return task
  }

  /// Waits for the screen's task to end, then records what the screen shows.
  ///
  /// It waits at a latch the task opens, not on the task's value: awaiting
  /// a task raises its priority to the waiter's (escalation), and the rows
  /// would then report the check's priority instead of the screen's.
  func finish(_ task: Task<Void, Never>) async throws {
    defer { thread.shutDown() }
    try await events.withinTimeLimit("open(_:)") { [finished] in await finished.wait() }
    await task.value
    let (thumbnail, spinner) = await (screen.thumbnail, screen.isDecoding)
    let shown =
      "\(thumbnail.map { "a thumbnail of \($0.rows.count) rows" } ?? "no thumbnail")"
      + (spinner ? ", spinner still on" : "")
    events.record(.publish("screen shows " + shown, to: .caller("screen"), label: shown))
  }

  var thumbnail: Thumbnail? { get async { await screen.thumbnail } }
  var isDecoding: Bool { get async { await screen.isDecoding } }
  var decodedRows: [Int] { decoder.contexts.map(\.row) }
}

@Suite("14 Where your code runs: decoding a thumbnail", .exercising("decodeThumbnail(of:with:)"))
struct WhereCodeRunsTests {
  @Test("Opening a photo shows its thumbnail once every row is decoded")
  func showsThumbnail() async throws {
    let scenario = await Scenario()
    try await scenario.finish(scenario.open())
    scenario.events.expect(scenario.decodedRows, equals: [0, 1, 2, 3], "Every row is decoded once, in order")
    scenario.events.expect(
      await scenario.thumbnail, equals: sunsetThumbnail, "The screen shows the thumbnail")
    scenario.events.expect(await scenario.isDecoding, equals: false, "The spinner is off")
  }

  /// Every row, not only the first: a fix that moves part of the work, or
  /// that only yields between rows, still decodes some rows on the main
  /// actor, and each of those is a frozen screen for as long as it takes.
  @Test("No row is decoded on the main actor, so the screen stays responsive")
  func offTheMainActor() async throws {
    let scenario = await Scenario()
    try await scenario.finish(scenario.open())
    let onMainActor = scenario.decoder.contexts.filter(\.onMainActor).map(\.row)
    scenario.events.expect(
      onMainActor, equals: [],
      "Rows decoded on the main actor, where nothing else (scrolling, the back button) can run meanwhile")
    scenario.events.expect(
      await scenario.thumbnail, equals: sunsetThumbnail, "The screen shows the thumbnail")
  }

  @Test("Cancelling the screen's task stops the decoding within one row")
  func cancelStopsDecoding() async throws {
    let scenario = await Scenario(cancelWhileDecoding: 1)
    try await scenario.finish(scenario.open())
    scenario.events.expect(
      scenario.decodedRows, equals: [0, 1], "Row 1 finishes, and no row after it is decoded")
    scenario.events.expect(await scenario.thumbnail, equals: nil, "The screen shows no thumbnail")
    scenario.events.expect(await scenario.isDecoding, equals: false, "The spinner is off")
  }

  @Test("Every row is decoded with the trace id of the screen's task")
  func traceIDReachesDecoding() async throws {
    let scenario = await Scenario()
    try await scenario.finish(scenario.open(trace: "trace-14"))
    scenario.events.expect(
      scenario.decoder.contexts.map(\.trace), equals: Array(repeating: "trace-14", count: 4),
      "Each row's decoding reads Trace.id = \"trace-14\", bound around the screen's task")
  }

  /// Read before anything awaits the screen's task: awaiting a task raises
  /// its priority to the waiter's (escalation), which would hide the answer.
  @Test("Every row is decoded at the priority of the screen's task")
  func priorityFollows() async throws {
    let scenario = await Scenario()
    let task = scenario.open()
    try await scenario.events.waitForEvent("row 3 to be decoded") {
      $0.hasPrefix("decoder.decodeRow(3) called")
    }
    let priorities = scenario.decoder.contexts.map(\.priority)
    try await scenario.finish(task)
    scenario.events.expect(
      priorities, equals: Array(repeating: TaskPriority.low, count: 4),
      "Each row decodes at the screen's task priority (.low); Task {} would inherit it, a detached task does not")
  }
}
