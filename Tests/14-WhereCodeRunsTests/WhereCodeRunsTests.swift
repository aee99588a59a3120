import ConcurrencyTestKit
import Synchronization
import Testing

@testable import WhereCodeRuns

// These checks are compiled with SwiftPM's defaults, not as the chapter is:
// they are not on the main actor, so they can watch it while the learner's
// code runs there.

/// What one row's decoding saw of the task it ran in.
private struct RowContext: Sendable {
  var trace: String?
  var priority: TaskPriority
}

/// A decoder whose rows can be held on the thread that decodes them, as a
/// long computation holds it, and which records the task context of each row.
private final class FakeDecoder: RowDecoder {
  let gate: ThreadGate
  let events: EventLog
  private let seen = Mutex<[RowContext]>([])

  init(events: EventLog, holding rows: Set<Int>) {
    self.events = events
    gate = ThreadGate("decoder.decodeRow", events: events, holding: rows)
  }

  /// What each row's decoding saw, in the order the rows were decoded.
  var contexts: [RowContext] { seen.withLock { $0 } }

  func decodeRow(_ row: Int, of photo: Photo) -> [UInt8] {
    let context = RowContext(trace: Trace.id, priority: Task.currentPriority)
    seen.withLock { $0.append(context) }
    events.record(
      "decoder saw trace id \(show(context.trace)) at priority \(describe(context.priority)), row \(row)")
    gate.pass(row)
    return Self.pixels(row)
  }

  static func pixels(_ row: Int) -> [UInt8] { (0..<8).map { UInt8((row * 37 + $0 * 11) % 251) } }
}

private func describe(_ priority: TaskPriority) -> String {
  switch priority {
  case .high: "high"
  case .medium: "medium"
  case .low: "low"
  case .background: "background"
  default: "\(priority.rawValue)"
  }
}

private let sunset = Photo(name: "sunset.jpg", rowCount: 4)
private let sunsetThumbnail = Thumbnail(rows: (0..<4).map(FakeDecoder.pixels))

/// A photo screen, its decoder, and the task the view runs `open(_:)` in.
private struct Scenario {
  let events = EventLog()
  let decoder: FakeDecoder
  let screen: PhotoScreen

  init(holding rows: Set<Int> = []) async {
    decoder = FakeDecoder(events: events, holding: rows)
    screen = await PhotoScreen(decoder: decoder)
  }

  /// Opens `photo` as SwiftUI's `.task` would: in a task of its own on the
  /// main actor, here with a trace id bound and a low priority, so that
  /// both can be told apart from the check's own.
  func open(_ photo: Photo = sunset, trace: String = "trace-14") -> Task<Void, Never> {
    events.record("screen calls open(\(photo))")
    return Trace.$id.withValue(trace) {
      Task(priority: .low) { @MainActor [screen] in await screen.open(photo) }
    }
  }

  /// Waits for the screen's task to end, then records what the screen shows.
  func finish(_ task: Task<Void, Never>) async throws {
    try await events.withinTimeLimit("open(_:)") { await task.value }
    let (thumbnail, spinner) = await (screen.thumbnail, screen.isDecoding)
    events.record(
      "screen shows \(thumbnail.map { "a thumbnail of \($0.rows.count) rows" } ?? "no thumbnail")"
        + (spinner ? ", spinner still on" : ""))
  }

  var thumbnail: Thumbnail? { get async { await screen.thumbnail } }
  var isDecoding: Bool { get async { await screen.isDecoding } }
  var decodedRows: [String] { decoder.gate.arrivals }
}

/// Holds `row` while it decodes and asks the main actor to run a job meanwhile.
private func mainActorStaysFree(whileDecoding row: Int) async throws {
  let scenario = await Scenario(holding: [row])
  defer { scenario.decoder.gate.releaseAll() }
  let task = scenario.open()
  try await scenario.decoder.gate.waitForArrival(row)
  let isFree = await MainActorProbe.runsJob(events: scenario.events)
  scenario.decoder.gate.release(row)
  try await scenario.finish(task)
  scenario.events.expect(
    isFree, equals: true,
    "While row \(row) decodes, the main actor runs a job the check gives it: the screen stays responsive")
  scenario.events.expect(await scenario.thumbnail, equals: sunsetThumbnail, "The screen shows the thumbnail")
}

@Suite("14 Where your code runs: decoding a thumbnail", .exercising("decodeThumbnail(of:with:)"))
struct WhereCodeRunsTests {
  @Test("Opening a photo shows its thumbnail once every row is decoded")
  func showsThumbnail() async throws {
    let scenario = await Scenario()
    try await scenario.finish(scenario.open())
    scenario.events.expect(
      scenario.decodedRows, equals: ["0", "1", "2", "3"], "Every row is decoded once, in order")
    scenario.events.expect(
      await scenario.thumbnail, equals: sunsetThumbnail, "The screen shows the thumbnail")
    scenario.events.expect(await scenario.isDecoding, equals: false, "The spinner is off")
  }

  // The main actor checks hold a row on the thread that decodes it. If that
  // is the main actor, nothing else can run there until the row is let go,
  // not even other checks' work on the main actor; so each runs in a process
  // of its own (an exit test), where only its own scenario needs the main
  // actor. The first row and the last: a fix that moves only part of the
  // work, or that only yields between rows, still holds the main actor
  // during one of them.

  @Test("The main actor runs other work while the first row decodes")
  func mainActorFreeDuringFirstRow() async {
    await #expect(processExitsWith: .success, Self.ownProcess) {
      try await mainActorStaysFree(whileDecoding: 0)
    }
  }

  @Test("The main actor runs other work while the last row decodes")
  func mainActorFreeDuringLastRow() async {
    await #expect(processExitsWith: .success, Self.ownProcess) {
      try await mainActorStaysFree(whileDecoding: 3)
    }
  }

  private static let ownProcess: Comment =
    "This check runs in a process of its own, so that a main actor it finds held stalls nothing else."

  @Test("Cancelling the screen's task stops the decoding within one row")
  func cancelStopsDecoding() async throws {
    let scenario = await Scenario(holding: [1])
    defer { scenario.decoder.gate.releaseAll() }
    let task = scenario.open()
    try await scenario.decoder.gate.waitForArrival(1)
    scenario.events.record("the screen's task is cancelled (the user left) while row 1 decodes")
    task.cancel()
    scenario.decoder.gate.release(1)
    try await scenario.finish(task)
    scenario.events.expect(
      scenario.decodedRows, equals: ["0", "1"], "Row 1 finishes, and no row after it is decoded")
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
    try await scenario.decoder.gate.waitForArrival(3)
    let priorities = scenario.decoder.contexts.map { describe($0.priority) }
    try await scenario.finish(task)
    scenario.events.expect(
      priorities, equals: Array(repeating: "low", count: 4),
      "Each row decodes at the screen's task priority (.low); a task of its own has a priority of its own")
  }
}
