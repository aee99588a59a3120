import ConcurrencyTestKit
import Testing

@testable import SessionLifetime

private struct FakeUploader: PhotoUploader {
  let gate: CallGate<String, Void>
  func upload(_ photo: String) async throws { try await gate.call(photo) }
}

/// A queue whose runs go only as far as the check lets them.
private struct Queue {
  let events = EventLog()
  let executor: StepExecutor
  let upload: CallGate<String, Void>
  let queue: UploadQueue

  init(_ photos: [String] = ["p1", "p2", "p3"], serverIgnoresCancellation: Bool = false) {
    executor = StepExecutor(events: events)
    upload = CallGate("upload", events: events, ignoresCancellation: serverIgnoresCancellation)
    queue = UploadQueue(uploader: FakeUploader(gate: upload), photos: photos)
  }

  /// The app comes to the foreground: it starts a run in a task of its own.
  func run(_ n: Int) -> Spawned<Void> {
    let queue = self.queue
    events.record(
      .call("the app starts run \(n)", from: .caller("run \(n)"), label: "run()"))
    return executor.spawn("run \(n)", answering: .caller("run \(n)")) { await queue.run() }
  }

  /// The app goes to the background: it cancels the run's task.
  func background(_ run: Spawned<Void>, _ n: Int) {
    events.record(
      .cancel(
        "the app goes to the background: run \(n) is cancelled", from: .caller("run \(n)"), label: "cancel"))
    run.cancel()
    executor.runUntilIdle()
  }

  /// Waits for upload call `index` and returns its photo.
  @discardableResult
  func waitForUpload(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    executor.runUntilIdle()
    let photo = try await upload.waitForCall(index, sourceLocation: sourceLocation)
    executor.runUntilIdle()
    return photo
  }

  /// Answers every upload with success, as it comes, until `run` ends.
  func uploadAll(_ run: Spawned<Void>, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    while true {
      try await executor.run(
        until: { run.isFinished || !upload.waitingCalls.isEmpty }, "the run to upload a photo or to end",
        sourceLocation: sourceLocation)
      if let waiting = upload.waitingCalls.first {
        try events.require(
          upload.waitingCalls.count, equals: 1, "One upload at a time", sourceLocation: sourceLocation)
        upload.succeed(waiting, with: ())
      } else {
        return
      }
    }
  }

  func finish(_ runs: [Spawned<Void>], sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await executor.run(
      until: { runs.allSatisfy(\.isFinished) }, "every run to end", sourceLocation: sourceLocation)
  }

  /// The queue's lists, read once no run is going.
  var lists: String {
    get async {
      let (pending, uploaded, failed) = await (queue.pending, queue.uploaded, queue.failed)
      return "pending \(pending), uploaded \(uploaded), failed \(failed)"
    }
  }

  /// How often the server was sent each photo that it took.
  func sent(_ photo: String) -> Int { upload.arguments.filter { $0 == photo }.count }
}

/// How the first upload of p1, cancelled but still going, ends at last.
enum LateUpload: CaseIterable, CustomTestStringConvertible {
  case succeeds, stops
  var testDescription: String { self == .succeeds ? "succeeds after all" : "stops after all" }
}

@Suite("15 A session's lifetime: uploads and the background", .exercising("UploadQueue.run()"))
struct UploadQueueTests {
  @Test("Photos are uploaded one at a time, in order, each once")
  func inOrder() async throws {
    let queue = Queue()
    let run = queue.run(1)
    try await queue.uploadAll(run)
    queue.events.expect(queue.upload.arguments, equals: ["p1", "p2", "p3"], "Each photo sent once, in order")
    queue.events.expect(
      await queue.lists, equals: "pending [], uploaded [\"p1\", \"p2\", \"p3\"], failed []",
      "Every photo uploaded")
  }

  @Test("A run with nothing to upload ends at once")
  func nothingToDo() async throws {
    let queue = Queue([])
    let run = queue.run(1)
    try await queue.finish([run])
    queue.events.expect(queue.upload.callCount, equals: 0, "No upload")
  }

  @Test("Going to the background stops the upload in progress, starts no other, and keeps the photo pending")
  func backgroundStops() async throws {
    let queue = Queue()
    let run = queue.run(1)
    try await queue.waitForUpload(0)
    queue.background(run, 1)
    try await queue.finish([run])
    queue.events.expect(
      queue.upload.wasCancelled(0), "The upload in progress is cancelled", actual: "it was left running")
    queue.events.expect(
      queue.upload.arguments, equals: ["p1"], "No other upload starts in the background")
    queue.events.expect(
      await queue.lists, equals: "pending [\"p1\", \"p2\", \"p3\"], uploaded [], failed []",
      "The interrupted photo is still pending, and not a failure")
  }

  @Test("Coming back resumes with the interrupted photo, and uploads nothing twice")
  func foregroundResumes() async throws {
    let queue = Queue()
    let first = queue.run(1)
    try await queue.waitForUpload(0)
    queue.upload.succeed(0, with: ())
    try await queue.waitForUpload(1)
    queue.background(first, 1)
    try await queue.finish([first])

    let second = queue.run(2)
    try await queue.uploadAll(second)
    queue.events.expect(
      queue.upload.arguments, equals: ["p1", "p2", "p2", "p3"],
      "p1 once; p2 interrupted, then sent again first; then p3")
    queue.events.expect(
      await queue.lists, equals: "pending [], uploaded [\"p1\", \"p2\", \"p3\"], failed []",
      "Every photo uploaded once")
  }

  @Test("A run cancelled before it starts uploads nothing")
  func cancelledBeforeStart() async throws {
    let queue = Queue()
    let run = queue.run(1)
    queue.background(run, 1)
    try await queue.finish([run])
    queue.events.expect(queue.upload.callCount, equals: 0, "No upload")
    queue.events.expect(
      await queue.lists, equals: "pending [\"p1\", \"p2\", \"p3\"], uploaded [], failed []",
      "Every photo still pending")
  }

  @Test("An upload that still succeeds after the background counts, and the cancelled run starts no other")
  func lateSuccessCounts() async throws {
    let queue = Queue(serverIgnoresCancellation: true)
    let run = queue.run(1)
    try await queue.waitForUpload(0)
    queue.background(run, 1)
    queue.events.record(.note("the server finishes p1 anyway", in: .code))
    queue.upload.succeed(0, with: ())
    try await queue.executor.run(
      until: { run.isFinished || !queue.upload.waitingCalls.isEmpty }, "run 1 to end or to send another photo"
    )
    queue.events.expect(queue.upload.arguments, equals: ["p1"], "Nothing more is sent in the background")
    while !run.isFinished {  // Each further upload is stopped, so that the run ends.
      for call in queue.upload.waitingCalls { queue.upload.fail(call, with: CancellationError()) }
      try await queue.executor.run(
        until: { run.isFinished || !queue.upload.waitingCalls.isEmpty }, "run 1 to end")
    }
    queue.events.expect(
      await queue.lists, equals: "pending [\"p2\", \"p3\"], uploaded [\"p1\"], failed []",
      "p1 is on the server, so it is uploaded, not pending")
  }

  @Test("A server error marks that photo failed, and the run goes on with the next")
  func serverError() async throws {
    let queue = Queue()
    let run = queue.run(1)
    try await queue.waitForUpload(0)
    queue.upload.fail(0, with: ServerDown())
    try await queue.uploadAll(run)
    queue.events.expect(queue.upload.arguments, equals: ["p1", "p2", "p3"], "Each photo sent once")
    queue.events.expect(
      await queue.lists, equals: "pending [], uploaded [\"p2\", \"p3\"], failed [\"p1\"]",
      "p1 failed, the others uploaded")
  }

  @Test(
    "A run started while the cancelled one still waits for the server never sends a photo twice, and loses none",
    arguments: LateUpload.allCases)
  func overlappingRuns(_ oldUpload: LateUpload) async throws {
    let lateUploadSucceeds = oldUpload == .succeeds
    // The app came back before the server stopped the upload of p1.
    let queue = Queue(serverIgnoresCancellation: true)
    let first = queue.run(1)
    try await queue.waitForUpload(0)
    queue.background(first, 1)
    let second = queue.run(2)
    queue.executor.runUntilIdle()
    queue.events.expect(
      queue.sent("p1"), equals: 1, "p1 is not sent again while its first upload is still going")
    if lateUploadSucceeds {
      queue.events.record(.note("the first upload of p1 succeeds after all", in: .code))
      queue.upload.succeed(0, with: ())
    } else {
      queue.events.record(.note("the first upload of p1 stops after all", in: .code))
      queue.upload.fail(0, with: CancellationError())
    }
    try await queue.uploadAll(second)
    try await queue.finish([first])
    if await !queue.queue.pending.isEmpty {
      // p1 came back after run 2 had nothing left to take: the next run takes it.
      let third = queue.run(3)
      try await queue.uploadAll(third)
    }
    let succeeded = lateUploadSucceeds ? ["p1", "p2", "p3"] : ["p2", "p3"]
    queue.events.expect(
      succeeded.map(queue.sent), equals: Array(repeating: 1, count: succeeded.count),
      "Each photo the server took was sent once")
    let lists = await (queue.queue.pending, Set(await queue.queue.uploaded), await queue.queue.failed)
    queue.events.expect(
      "\(lists.0) \(lists.1 == ["p1", "p2", "p3"]) \(lists.2)", equals: "[] true []",
      "In the end every photo is uploaded, none pending or failed")
  }
}
