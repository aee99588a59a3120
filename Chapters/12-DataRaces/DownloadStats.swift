// Chapter 12: Sendable and data races (exercise 1 of 2)
//
// Goal: `DownloadStats` counts finished downloads exactly, however many
// threads finish downloads at once, and the stats screen can read the count
// from any thread, all without a data race.
//
// Run `swift run workshop check 12` to see which behaviours still fail.

/// Counts the downloads the app has finished, for the stats screen and analytics.
///
/// One instance is shared by every download task. Each of them runs on
/// whatever thread the runtime picks, and so does the stats screen's refresh.
// TODO: `@unchecked Sendable` is a promise to the compiler: "I made this safe
// to share between threads myself, don't check it". Who keeps that promise?
final class DownloadStats: @unchecked Sendable {
  private var finished = 0

  /// Records one finished download and returns its number: 1 for the first,
  /// 2 for the second...
  func recordFinished() async -> Int {
    // TODO: Two downloads can finish at the same moment on two threads.
    finished += 1
    return finished
  }

  /// How many downloads have finished so far.
  var finishedCount: Int {
    get async {
      // TODO: The stats screen reads this on its own thread while downloads
      // go on finishing on others.
      finished
    }
  }
}
