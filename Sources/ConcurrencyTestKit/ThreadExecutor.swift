import Foundation

/// A task executor with a thread of its own: the jobs of the tasks that
/// prefer it (SE-0417) run there, one at a time, in the order they come.
///
///     let thread = ThreadExecutor(name: "SDK thread")
///     defer { thread.shutDown() }
///     let value = await Task(executorPreference: thread) { await stats.recordFinished() }.value
///
/// The thread ends once `shutDown()` is called and its last job has run.
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []  // Guarded by `condition`.
  private var shuttingDown = false  // Guarded by `condition`.

  /// Starts the thread, named `name` in debuggers and crash logs.
  public init(name: String) {
    let thread = Thread { [self] in runJobs() }
    thread.name = name
    thread.start()
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// Lets the thread end once it has run the jobs it has.
  public func shutDown() {
    condition.lock()
    shuttingDown = true
    condition.signal()
    condition.unlock()
  }

  private func runJobs() {
    while true {
      condition.lock()
      while jobs.isEmpty && !shuttingDown { condition.wait() }
      guard !jobs.isEmpty else {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
