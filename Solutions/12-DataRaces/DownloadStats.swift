// Chapter 12: Sendable and data races (exercise 1 of 2, reference solution)
//
// Goal: `DownloadStats` counts finished downloads exactly, however many
// threads finish downloads at once, and the stats screen can read the count
// from any thread, all without a data race.
//
// The fix: the count lives inside a `Mutex`, and every access, the increment,
// the value it returns and every read, happens with the lock held. With no
// unprotected stored state left, the class is checked `Sendable`: the
// compiler verifies the promise instead of taking it on trust.
// An actor works as well (`actor DownloadStats`, same methods, callers
// already `await`); so does `Atomic<Int>` with `wrappingAdd`, for a single
// number. Not `load` then `store`: two threads can load the same value.

import Synchronization

/// Counts the downloads the app has finished, for the stats screen and analytics.
///
/// One instance is shared by every download task. Each of them runs on
/// whatever thread the runtime picks, and so does the stats screen's refresh.
final class DownloadStats: Sendable {
  // Fix: the only stored state is the Mutex, so no `@unchecked` is needed.
  private let finished = Mutex(0)

  /// Records one finished download and returns its number: 1 for the first,
  /// 2 for the second...
  func recordFinished() async -> Int {
    // Fix: increment and read the new value in one critical section. Reading
    // `finished` again after the lock is released could return another
    // download's number, and would race with its increment.
    finished.withLock { count in
      count += 1
      return count
    }
  }

  /// How many downloads have finished so far.
  var finishedCount: Int {
    get async {
      // Fix: reads take the lock too. A lock only on writes orders nothing
      // for a reader that never takes it.
      finished.withLock { $0 }
    }
  }
}
