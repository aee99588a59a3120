import Foundation
import Synchronization
import Testing

@testable import WorkshopCore
@testable import WorkshopLearner

/// Runs `workshop watch` on a thread of its own in a learner's copy and
/// hands the test each screen it prints, for the tests of the learner's loop
/// and of one number in every view.
///
/// Each line the watch prints wakes the test; nothing polls. Real time
/// bounds only a watch that never prints what the test waits for.
///
/// ```swift
/// let watch = WatchDriver(["watch", "01"], in: workspace)
/// defer { watch.stop() }
/// let first = try await watch.grading(1)
/// #expect(first.contains("Chapter 01 · Adder  (not started)"))
/// ```
final class WatchDriver: Sendable {
  private let out = Mutex("")
  private let printed: AsyncStream<Void>
  private let stopping = Atomic(false)
  private let ended: AsyncStream<Int32>

  /// Starts `workshop` with `arguments` (a `watch`) in `workspace`.
  init(_ arguments: [String], in workspace: Workspace) {
    let (printed, printing) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let (ended, end) = AsyncStream<Int32>.makeStream()
    self.printed = printed
    self.ended = ended
    var command = Workshop(
      console: Workshop.Console(
        out: { line in
          self.out.withLock { $0 += line + "\n" }
          printing.yield()
        }, err: { _ in }),
      style: Style(colored: false), directory: workspace.root, subcommands: LearnerCommands.table,
      environment: [:])
    command.stopWatching = { self.stopping.load(ordering: .acquiring) }
    let running = command
    Thread.detachNewThread {
      end.yield(running.run(arguments))
      end.finish()
    }
  }

  /// Everything the watch printed so far.
  var printedText: String { out.withLock { $0 } }

  /// The text of the `count`th grading the watch printed (each ends with
  /// its "Watching Chapters/ for saves" line), once it is printed; records
  /// an issue and returns "" if it is not within `bound`.
  func grading(
    _ count: Int, within bound: Duration = .seconds(300), sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> String {
    let last: @Sendable () -> String? = {
      let parts = self.out.withLock { $0 }.components(separatedBy: "Watching Chapters/ for saves")
      return parts.count > count ? parts[count - 1] : nil
    }
    let printed = self.printed
    let found = try await withThrowingTaskGroup(of: String?.self) { group in
      group.addTask {
        if let text = last() { return text }
        for await _ in printed {
          if let text = last() { return text }
        }
        return nil
      }
      group.addTask {
        try await Task.sleep(for: bound)  // Real time, only as the hang bound.
        return nil
      }
      let first = try await group.next() ?? nil
      group.cancelAll()
      return first
    }
    guard let found else {
      Issue.record("no grading \(count) within \(bound):\n\(printedText)", sourceLocation: sourceLocation)
      return ""
    }
    return found
  }

  /// Asks the watch to stop after what it is doing, without waiting.
  func stop() { stopping.store(true, ordering: .releasing) }

  /// Asks the watch to stop and returns its exit status.
  func stopAndWait() async -> Int32? {
    stop()
    var statuses = ended.makeAsyncIterator()
    return await statuses.next()
  }
}
