import Dispatch

/// Tells a check whether code is running on the main actor right now,
/// without stopping it or waiting for anything.
///
/// The main actor runs its jobs on the main dispatch queue, on Linux as on
/// Apple platforms; the witness marks that queue and asks, from whatever
/// code calls it, whether the current job belongs to it. Call it from a
/// fake's synchronous method that the learner's code calls, to learn where
/// that code ran:
///
///     final class FakeDecoder: RowDecoder {
///       let rowsOnTheMainActor = Mutex<[Int]>([])
///       func decodeRow(_ row: Int, of photo: Photo) -> [UInt8] {
///         if MainActorWitness.isRunningOnMainActor { rowsOnTheMainActor.withLock { $0.append(row) } }
///         return pixels(row)
///       }
///     }
///
/// A row decoded on the main actor is a frozen screen for as long as the row
/// takes, however fast the fake is: the answer does not depend on timing,
/// so the check needs no real work, no sleep and no second process.
///
/// It answers for the job that calls it: code that runs on the main actor
/// between two awaits and then leaves is seen on the main actor only where it
/// asks. `MainActor.assumeIsolated` would crash instead of answering;
/// `Thread.isMainThread` is not the main actor on Linux.
public enum MainActorWitness {
  /// The key, in a box that may be shared: it is only ever read after the
  /// one write that sets it on the main queue. (Dispatch's key class says
  /// nothing about `Sendable` in every SDK; the box says it once for all.)
  private struct Key: @unchecked Sendable {
    let key = DispatchSpecificKey<Bool>()
  }

  private static let marked: Key = {
    let marked = Key()
    DispatchQueue.main.setSpecific(key: marked.key, value: true)
    return marked
  }()

  /// Whether the calling code runs as a job of the main actor.
  public static var isRunningOnMainActor: Bool {
    DispatchQueue.getSpecific(key: marked.key) ?? false
  }
}
