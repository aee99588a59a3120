/// What the kit and the runner agree on about a check's heartbeat: a check
/// run by the runner says so in the test's event stream whenever it moves
/// on, at most every ``interval`` seconds, so that a check that has gone
/// quiet is known stuck in seconds rather than at its time limit.
///
/// The kit beats only when the runner asks (``environmentKey``): plain
/// `swift test` and Xcode see no beats. A beat is an attachment named
/// ``attachmentName`` holding ``bytes``; the first one, recorded as the
/// check starts, says that this check beats. Learner code cannot record
/// one (chapter code cannot import Testing), and a forged one could only
/// keep a stuck check running until its time limit, which it has anyway.
public enum Heartbeat {
  /// Set to `1` by the runner in the environment of the checks it runs.
  public static let environmentKey = "WORKSHOP_HEARTBEAT"

  /// The name every beat is attached under.
  public static let attachmentName = "workshop-heartbeat"

  /// What every beat holds.
  public static let bytes: [UInt8] = Array("workshop heartbeat".utf8)

  /// The fewest seconds between two beats of a process.
  public static let interval = 0.5

  /// How many hang bounds a check that beats may say nothing before it is
  /// stopped as stuck. A check that finishes says something whenever one
  /// of the kit's waits ends (each lasts a bound at most), a round of
  /// threads is played or an exit test is running: three bounds leave it
  /// room on a machine busy enough to hold it off its core for two.
  public static let silentBounds = 3.0
}
