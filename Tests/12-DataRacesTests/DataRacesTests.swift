import ConcurrencyTestKit
import Foundation
import Synchronization
import Testing

@testable import DataRaces

// How these checks catch a data race every time, not by luck.
//
// The runner runs this chapter under Thread Sanitizer (TSan), which fails the
// running check when it reports a race. TSan does not need the two accesses
// to overlap in time: it reports any two accesses to the same memory, at least
// one a write, from two threads with nothing between them that orders them (a
// lock both take, a queue or task hand-over, a thread start or join). So each
// racy scenario below
//   - makes the two accesses on two real threads, never the same one;
//   - runs them one after the other, so that the plain run is deterministic
//     too: the order comes from a relaxed atomic flag, which TSan rightly does
//     not count as synchronisation;
//   - keeps everything that synchronises out of the window between them: the
//     threads never write to the event log (it has a lock) while the scenario
//     runs, and are joined only after both accesses.
// Correct code synchronises the accesses itself (a lock, an actor, a stream),
// and then TSan stays silent.
//
// While threads run, the checks wait through actors and the main actor, not
// through the kit's `EventLog` waits: those use `Synchronization.Mutex`, whose
// contended path is invisible to TSan on Linux, so a waiter and a writer
// meeting on the log's lock would now and then be reported as a race of the
// check's own making (measured: 2 runs in 60).

// MARK: - Two threads, no happens-before edge between them

/// A one-way signal between threads that orders nothing for Thread Sanitizer.
private final class Signal: Sendable {
  private let raised = Atomic(false)

  func raise() {
    raised.store(true, ordering: .relaxed)
  }

  /// Spins until the signal is raised; false if it was not within the hang bound.
  func wait() -> Bool {
    let deadline = ContinuousClock.now + hangBound
    while !raised.load(ordering: .relaxed) {
      if ContinuousClock.now > deadline { return false }
      sched_yield()
    }
    return true
  }
}

/// Runs `first` on thread A and then, once it has returned, `second` on
/// thread B, with nothing between the two threads that orders their memory
/// accesses. Thread B is already running and waiting before A starts, so no
/// thread start stands between them either.
private func onThreadAThenB<A: Sendable, B: Sendable>(
  _ events: EventLog,
  _ first: @escaping @Sendable () async -> A,
  then second: @escaping @Sendable () async -> B,
  sourceLocation: SourceLocation = #_sourceLocation
) async throws -> (A, B) {
  let threadA = ThreadExecutor(name: "thread A")
  let threadB = ThreadExecutor(name: "thread B")
  defer {
    threadA.shutDown()
    threadB.shutDown()
  }
  let bIsWaiting = Signal()
  let aIsDone = Signal()
  let a = Task(executorPreference: threadA) { () -> A? in
    guard bIsWaiting.wait() else { return nil }
    let value = await first()
    aIsDone.raise()
    return value
  }
  let b = Task(executorPreference: threadB) { () -> B? in
    bIsWaiting.raise()
    guard aIsDone.wait() else { return nil }
    return await second()
  }
  guard let valueA = await valueWithinHangBound(of: a) else {
    try events.stop(
      "The call on thread A did not return within \(seconds(hangBound)).", sourceLocation: sourceLocation)
  }
  guard let valueB = await valueWithinHangBound(of: b) else {
    try events.stop(
      "The call on thread B did not return within \(seconds(hangBound)).", sourceLocation: sourceLocation)
  }
  return (valueA, valueB)
}

/// The numbers one thread was given, written by that thread only.
private final class NumbersBox: @unchecked Sendable {
  var numbers: [Int] = []
}

/// The value of `task`, or nil if it has none within the hang bound.
private func valueWithinHangBound<Value: Sendable>(of task: Task<Value?, Never>) async -> Value? {
  let outcome = FirstOutcome<Value>()
  Task { await outcome.decide(await task.value) }
  let timer = Task {
    try? await Task.sleep(for: hangBound)  // Real time, only as the hang bound.
    await outcome.decide(nil)
  }
  defer { timer.cancel() }
  return await outcome.wait()
}

/// Whichever outcome comes first, kept on an actor, which TSan sees.
private actor FirstOutcome<Value: Sendable> {
  private var decided = false
  private var value: Value?
  private var waiter: CheckedContinuation<Value?, Never>?

  func decide(_ value: Value?) {
    guard !decided else { return }
    decided = true
    self.value = value
    waiter?.resume(returning: value)
    waiter = nil
  }

  func wait() async -> Value? {
    if decided { return value }
    return await withCheckedContinuation { waiter = $0 }
  }
}

// MARK: - Exercise 1: the download stats

@Suite("12 Sendable and data races", .serialized)
struct DataRacesTests {
  @Suite("download stats", .exercising("DownloadStats.recordFinished()"))
  struct Stats {
    @Test("Numbers finished downloads 1, 2, 3 and counts them")
    func countsOneByOne() async {
      let events = EventLog()
      let stats = DownloadStats()
      var numbers: [Int] = []
      for _ in 1...3 {
        numbers.append(await stats.recordFinished())
      }
      let count = await stats.finishedCount
      events.record(
        .note(
          "three downloads finished one after another: numbers \(numbers), finishedCount \(count)", in: .code)
      )
      events.expect(numbers, equals: [1, 2, 3], "The downloads get the numbers 1, 2 and 3")
      events.expect(count, equals: 3, "finishedCount is 3")
    }

    @Test("Gives downloads that finish on two threads their own numbers, and counts both")
    func twoThreadsRecord() async throws {
      let events = EventLog()
      let stats = DownloadStats()
      record(events, thread: "A", does: "a download finishes, recordFinished()")
      record(events, thread: "B", does: "right after, another download finishes, recordFinished()")
      let (first, second) = try await onThreadAThenB(events) {
        await stats.recordFinished()
      } then: {
        await stats.recordFinished()
      }
      let count = await stats.finishedCount
      events.record(
        .note(
          "thread A got number \(first), thread B got number \(second); finishedCount \(count)", in: .code))
      events.expect(
        [first, second].sorted(), equals: [1, 2], "The two downloads get the numbers 1 and 2, one each")
      events.expect(count, equals: 2, "finishedCount is 2")
    }

    // The check above proves the two calls are ordered for ThreadSanitizer;
    // this one makes them overlap, which a read-modify-write split over two
    // lock acquisitions, or an atomic load followed by a separate store, needs
    // before it loses an update: race-free code that is still wrong.
    @Test(
      "Gives downloads that finish on two threads at the very same moment their own numbers, and counts every one"
    )
    func manyThreadsAtOnce() async throws {
      let events = EventLog()
      let threads = SeparateThreads.overlapThreads
      let perThread = 20
      let total = threads * perThread
      events.record(
        "\(threads) threads, released at the same moment, each finish \(perThread) downloads:"
          + " recordFinished() \(perThread) times, round after round")
      try await SeparateThreads.playOverlapping(
        "downloads finishing on \(threads) threads", callsPerThread: perThread, events: events
      ) {
        round in
        let stats = DownloadStats()
        // One box per thread, read only after every thread is done: a lock
        // the threads shared would order their calls for ThreadSanitizer.
        let boxes = (0..<threads).map { _ in NumbersBox() }
        await SeparateThreads.runTasks(
          boxes.map { box in
            {
              for _ in 1...perThread { box.numbers.append(await stats.recordFinished()) }
            }
          })
        let numbers = boxes.flatMap(\.numbers).sorted()
        let count = await stats.finishedCount
        guard numbers == Array(1...total) && count == total else {
          let repeated = Dictionary(grouping: numbers, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
          events.record(
            "round \(round): the \(total) downloads got \(Set(numbers).count) different numbers"
              + (repeated.isEmpty
                ? "" : ", \(repeated.prefix(5).map(String.init).joined(separator: ", ")) more than once")
              + "; finishedCount \(count)")
          try events.stop(
            "Every download gets a number of its own, 1 to \(total), and finishedCount is \(total)",
            actual: "\(Set(numbers).count) different numbers for \(total) downloads, finishedCount \(count):"
              + " an update was lost between reading the count and writing it back")
        }
      }
      events.record("every round: numbers 1 to \(total), each once, and finishedCount \(total)")
    }

    @Test(
      "The stats screen reads the count on its own thread while downloads finish on another",
      .exercising("DownloadStats.finishedCount"))
    func readOnAnotherThread() async throws {
      let events = EventLog()
      let stats = DownloadStats()
      record(events, thread: "A", does: "a download finishes, recordFinished()")
      record(events, thread: "B", does: "right after, the stats screen reads finishedCount")
      let (number, shown) = try await onThreadAThenB(events) {
        await stats.recordFinished()
      } then: {
        await stats.finishedCount
      }
      let count = await stats.finishedCount
      events.record(
        .note("thread A got number \(number), the screen read \(shown); finishedCount \(count)", in: .code))
      events.expect(number, equals: 1, "The download gets number 1")
      events.expect(
        (0...1).contains(shown), "The screen reads a count the app really had: 0 or 1",
        actual: "it read \(shown)")
      events.expect(count, equals: 1, "finishedCount is 1")
    }
  }

  // MARK: - Exercise 2: the progress adapter

  @Suite("progress adapter", .exercising("ProgressAdapter.downloader(didReceiveDataFor:)"))
  @MainActor
  struct Adapter {
    @Test("Shows a progress update the SDK reports on its own thread")
    func oneUpdate() async throws {
      let scene = Scene()
      scene.events.record(
        .answer(
          "the SDK's thread reports report.pdf at 150 of 300 bytes", from: .service("SDK"), label: "progress")
      )
      let thread = scene.sdk.reportOnItsOwnThread([150])
      try thread.waitWhileTheMainActorIsBusy(scene.events)
      try await scene.screen.waitUntilShown(1)
      thread.join()
      scene.events.expect(
        scene.screen.shown.map(describe), equals: ["downloading report.pdf: 150 of 300 bytes"],
        "The screen shows report.pdf at 150 of 300 bytes")
    }

    @Test("Shows every progress update from the SDK's thread, in order, with the values of that moment")
    func updatesInOrder() async throws {
      let scene = Scene()
      scene.events.record(
        .answer(
          "the SDK's thread reports report.pdf at 100, 200 and 300 of 300 bytes, then reuses its"
            + " transfer object for the next file, photo.jpg; the main thread is busy meanwhile",
          from: .service("SDK"), label: "progress"))
      let thread = scene.sdk.reportOnItsOwnThread([100, 200, 300], thenReuseFor: ("photo.jpg", 2_000))
      try thread.waitWhileTheMainActorIsBusy(scene.events)
      try await scene.screen.waitUntilShown(3)
      thread.join()
      scene.events.expect(
        scene.screen.shown.map(describe),
        equals: [100, 200, 300].map { "downloading report.pdf: \($0) of 300 bytes" },
        "The screen shows the three updates in order, each with the values the SDK reported then")
    }

    @Test(
      "Shows a download the SDK finishes on the main thread before its callback returns",
      .exercising("ProgressAdapter.downloader(didFinish:)"))
    func finishOnMainThread() async {
      let scene = Scene()
      scene.sdk.transfer.bytesReceived = 300
      scene.events.record(
        .answer(
          "on the main thread, the SDK calls didFinish for report.pdf (300 bytes), then clears its"
            + " transfer object and tells the system, which takes the app-switcher snapshot",
          from: .service("SDK"), label: "didFinish"))
      var snapshot = DownloadStatus.idle
      scene.sdk.finishOnTheMainThread {
        snapshot = scene.viewModel.status
        scene.events.record(
          .publish(
            "app-switcher snapshot: \(describe(snapshot))", to: .caller("app switcher"),
            label: describe(snapshot)))
      }
      scene.events.expect(
        describe(snapshot), equals: "report.pdf finished (300 bytes)",
        "The snapshot shows report.pdf finished (300 bytes)")
      // Let whatever the adapter queued on the main actor run, then look again.
      await Task { @MainActor in }.value
      scene.events.expect(
        describe(scene.viewModel.status), equals: "report.pdf finished (300 bytes)",
        "Afterwards the screen still shows report.pdf finished (300 bytes), the values the SDK reported")
    }
  }
}

// MARK: - The fake SDK and screen

private func seconds(_ duration: Duration) -> String {
  let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  return value == 1 ? "1 second" : "\(value.formatted()) seconds"
}

private func describe(_ status: DownloadStatus) -> String {
  switch status {
  case .idle: "idle"
  case .downloading(let update): "downloading \(update)"
  case .finished(let fileName, let size):
    "\(fileName.isEmpty ? "(no file name)" : fileName) finished (\(size) bytes)"
  }
}

/// One download screen wired to the SDK, as the app sets it up.
@MainActor
private struct Scene {
  let events = EventLog()
  let screen: Screen
  let viewModel: DownloadViewModel
  let adapter: ProgressAdapter
  let sdk: FakeDownloader

  init() {
    screen = Screen(events: events)
    viewModel = DownloadViewModel(render: screen.render)
    adapter = ProgressAdapter(viewModel: viewModel)
    sdk = FakeDownloader(fileName: "report.pdf", totalBytes: 300, delegate: adapter)
  }
}

/// The screen: remembers everything it was asked to draw.
@MainActor
private final class Screen {
  private(set) var shown: [DownloadStatus] = []
  private let events: EventLog

  init(events: EventLog) {
    self.events = events
  }

  func render(_ status: DownloadStatus) {
    shown.append(status)
    events.record(
      .publish(
        "screen shows #\(shown.count): \(describe(status))", to: .caller("screen"),
        label: "#\(shown.count): \(describe(status))"))
    if let waiter, shown.count >= waiter.count {
      self.waiter = nil
      waiter.continuation.resume(returning: true)
    }
  }

  private var waiter: (count: Int, continuation: CheckedContinuation<Bool, Never>)?

  /// Waits on the main actor until the screen has drawn `count` times.
  func waitUntilShown(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    guard shown.count < count else { return }
    let timer = Task { @MainActor [weak self] in
      try await Task.sleep(for: hangBound)  // Real time, only as the hang bound.
      self?.giveUp()
    }
    let arrived = await withCheckedContinuation { waiter = (count, $0) }
    timer.cancel()
    guard arrived else {
      try events.stop(
        "Waited \(seconds(hangBound)) for the screen to show \(count) update(s), but it showed \(shown.count).",
        sourceLocation: sourceLocation)
    }
  }

  private func giveUp() {
    guard let waiter else { return }
    self.waiter = nil
    waiter.continuation.resume(returning: false)
  }
}

/// The legacy SDK, faked. Like the real one, Swift 6 does not check it: it
/// owns one transfer object, changes it on a thread of its own and hands it
/// to its delegate.
private final class FakeDownloader: @unchecked Sendable {
  let transfer: LegacyTransfer
  let delegate: ProgressAdapter

  init(fileName: String, totalBytes: Int, delegate: ProgressAdapter) {
    transfer = LegacyTransfer(fileName: fileName, totalBytes: totalBytes)
    self.delegate = delegate
  }

  /// On a new thread: reports each amount received, then optionally reuses
  /// the transfer object for the next file.
  func reportOnItsOwnThread(
    _ amounts: [Int], thenReuseFor next: (fileName: String, totalBytes: Int)? = nil
  ) -> SDKThread {
    let thread = SDKThread()
    Thread.detachNewThread { [self] in
      for amount in amounts {
        transfer.bytesReceived = amount
        delegate.downloader(didReceiveDataFor: transfer)
      }
      if let next {
        transfer.fileName = next.fileName
        transfer.totalBytes = next.totalBytes
        transfer.bytesReceived = 0
      }
      thread.finished()
    }
    return thread
  }

  /// Calls `didFinish`, then clears the transfer object for reuse, then tells
  /// the system, all on the main thread, before returning.
  @MainActor
  func finishOnTheMainThread(thenTellTheSystem tellTheSystem: () -> Void) {
    delegate.downloader(didFinish: transfer)
    transfer.fileName = ""
    transfer.totalBytes = 0
    transfer.bytesReceived = 0
    tellTheSystem()
  }
}

/// The SDK's worker thread.
private final class SDKThread: Sendable {
  private let done = Signal()
  private let exited = DispatchGroup()

  init() {
    exited.enter()
  }

  fileprivate func finished() {
    done.raise()
    exited.leave()
  }

  /// Keeps the main actor busy until the SDK's thread has made all its calls,
  /// the way a busy main thread would: nothing queued for it runs meanwhile.
  /// Waiting through a relaxed flag, not a lock, keeps Thread Sanitizer blind
  /// to the order, so it judges only the adapter's own synchronisation.
  @MainActor
  func waitWhileTheMainActorIsBusy(
    _ events: EventLog, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    guard done.wait() else {
      try events.stop(
        "The SDK's thread was still inside its callbacks after \(seconds(hangBound)) while the main thread"
          + " was busy. A delegate callback must not wait for the main thread (DispatchQueue.main.sync"
          + " and the like): the SDK's thread stalls, and deadlocks when the main thread waits for the SDK.",
        sourceLocation: sourceLocation)
    }
  }

  /// Waits for the thread to end; call it only after the check's last access.
  func join() {
    exited.wait()
  }
}

/// Records what one of a check's threads does, as a call from its own lane
/// to the code: `thread A: a download finishes, recordFinished()`.
private func record(_ events: EventLog, thread: String, does what: String) {
  events.record(.call("thread \(thread): \(what)", from: .caller("thread \(thread)"), label: what))
}
