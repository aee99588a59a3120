import Synchronization
import WorkshopCore

/// Prints the progress table's rows in course order while chapters are
/// graded: a chapter's row as soon as it and every row above it are known,
/// the header with the first row.
///
/// Chapters finish in any order (eight are graded at once, and a chapter
/// with a ThreadSanitizer pass finishes last); the table still reads top to
/// bottom, and a learner sees chapter 01's row without waiting for 13.
///
/// ```swift
/// let rows = TableRows(chapters: curriculum.chapters, header: report.progressHeader) {
///   print($0)
/// } row: { report.progressRow($0) }
/// grader.reported = rows.take   // from any thread
/// let reports = try grader.grade()
/// rows.finish(reports)          // the rows not printed yet
/// ```
final class TableRows: Sendable {
  private struct State {
    var next = 0
    var waiting: [Int: ChapterReport] = [:]
    var headerShown = false
  }

  private let order: [Int]
  private let header: String
  private let print: @Sendable (String) -> Void
  private let row: @Sendable (ChapterReport) -> String
  private let state = Mutex(State())

  /// - Parameters:
  ///   - chapters: the table's chapters, in the order of its rows.
  ///   - print: prints one line or block of the table.
  ///   - row: the row of a chapter's report.
  init(
    chapters: [Curriculum.Chapter], header: String, print: @escaping @Sendable (String) -> Void,
    row: @escaping @Sendable (ChapterReport) -> String
  ) {
    order = chapters.map(\.number)
    self.header = header
    self.print = print
    self.row = row
  }

  /// Takes a chapter's final report, and prints every row that is now
  /// next in order.
  @Sendable func take(_ report: ChapterReport) {
    state.withLock { state in
      guard state.waiting[report.chapter.number] == nil, order[state.next...].contains(report.chapter.number)
      else { return }
      state.waiting[report.chapter.number] = report
      flush(&state)
    }
  }

  /// Prints the rows of `reports` that are not printed yet, in order (a
  /// chapter without a report has no row), the header first if no row was.
  func finish(_ reports: [ChapterReport]) {
    state.withLock { state in
      for report in reports where order[state.next...].contains(report.chapter.number) {
        state.waiting[report.chapter.number] = report
      }
      if !state.headerShown {
        print(header)
        state.headerShown = true
      }
      for number in order[state.next...] {
        if let report = state.waiting.removeValue(forKey: number) { print(row(report)) }
      }
      state.next = order.count
    }
  }

  private func flush(_ state: inout State) {
    while state.next < order.count, let report = state.waiting.removeValue(forKey: order[state.next]) {
      if !state.headerShown {
        print(header)
        state.headerShown = true
      }
      print(row(report))
      state.next += 1
    }
  }
}
