import Foundation

/// Notices saves in a set of folders by looking at their Swift files fifty
/// times a second.
///
/// Polling is one code path on Linux and macOS, sees every way an editor
/// saves (in place, or a new file renamed over the old one), and costs a few
/// dozen `stat` calls per look.
package struct FileWatcher: Sendable {
  /// What one look saw: each Swift file's identity, size and date, by path.
  package typealias Snapshot = [String: String]

  /// The watched folders, absolute, each with a key the changes are reported by.
  var folders: [(key: Int, path: String)]
  /// How long to wait between looks.
  var interval: Duration = .milliseconds(20)
  /// How long a change must stay still before it counts: an editor that
  /// writes a file in several steps is read once it has finished.
  var settle: Duration = .milliseconds(20)

  package init(folders: [(key: Int, path: String)]) {
    self.folders = folders
  }

  /// The Swift files of every folder as they are now.
  package func snapshot() -> [Int: Snapshot] {
    var result: [Int: Snapshot] = [:]
    for folder in folders {
      var files: Snapshot = [:]
      for name in Files.under(URL(fileURLWithPath: folder.path), suffix: ".swift") {
        var info = stat()
        guard stat(folder.path + "/" + name, &info) == 0 else { continue }
        #if canImport(Darwin)
          let modified = info.st_mtimespec
        #else
          let modified = info.st_mtim
        #endif
        files[name] =
          "\(info.st_ino):\(info.st_size):\(modified.tv_sec)." + String(format: "%09d", Int(modified.tv_nsec))
      }
      result[folder.key] = files
    }
    return result
  }

  /// Waits until a folder's files differ from `last`, then returns the keys
  /// of the folders that changed, the most recently saved last, and updates
  /// `last`. Returns nil when `shouldStop` says so.
  package func waitForChange(since last: inout [Int: Snapshot], shouldStop: () -> Bool) -> [Int]? {
    while !shouldStop() {
      var now = snapshot()
      guard now != last else {
        Thread.sleep(forTimeInterval: interval.inSeconds)
        continue
      }
      // Let the save finish.
      while true {
        Thread.sleep(forTimeInterval: settle.inSeconds)
        let again = snapshot()
        if again == now { break }
        now = again
      }
      let changed = folders.map(\.key).filter { now[$0] != last[$0] }
      last = now
      return changed.sorted { latest(in: now[$0] ?? [:]) < latest(in: now[$1] ?? [:]) }
    }
    return nil
  }

  /// The newest modification date in a folder's snapshot, in seconds.
  private func latest(in files: Snapshot) -> Double {
    files.values.compactMap { Double($0.split(separator: ":").last ?? "") }.max() ?? 0
  }
}
