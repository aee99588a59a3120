/// The words the test kit writes into recorded events that the runner's
/// timeline reads back: defined here only, for both.
public enum EventWords {
  /// After a call's answer that arrived once its caller was cancelled:
  /// `search("sw") returned [Sweater] (late: its caller was cancelled)`.
  public static let lateAnswer = " (late: its caller was cancelled)"
  /// After a call made by a task that was already cancelled:
  /// `search("sw") called by a cancelled task`.
  public static let byCancelledTask = " by a cancelled task"
  /// Before everything the test clock records: `clock: advanced to t=300ms`.
  public static let clock = "clock: "
  /// Before the hang guard's record of an operation that never finished.
  public static let hangGuard = "hang guard: "
}
