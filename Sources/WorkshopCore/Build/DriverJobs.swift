import Foundation
import Synchronization

/// The jobs a compiler driver said it would run (`swiftc … -###`), per
/// planned command, kept between runs of the runner.
///
/// Asking costs a driver start per planned command (and one per `clang`
/// among the jobs), each in the sandbox: about a quarter of a second of
/// every `check` that rebuilds a chapter quickly (see ``ChapterRebuild``).
/// The answers are kept in memory and, one file each, in a folder beside
/// the scratch folder, never inside it: no sandboxed job can write there,
/// so what a later run executes is what a driver said, not what code under
/// test wrote.
///
/// An answer is found again only for the same command, the same content of
/// each file it reads its arguments from, and the same driver executable
/// (its inode, size and date): a new toolchain asks again. One file per
/// answer: a lookup reads only its own, and links asked side by side (a
/// suite's versions in chapter 13) never write over each other's.
///
/// ```swift
/// let store = DriverJobs(folder: scratch.appendingPathExtension("jobs"))
/// if let jobs = store.jobs(for: command) { … } else { store.keep(asked, for: command) }
/// ```
struct DriverJobs: Sendable {
  /// Where the answers are kept between runs, one file each.
  var folder: URL

  /// One kept answer: the full key, so that two keys with one hash never mix.
  private struct Entry: Codable {
    var key: [String]
    var jobs: [[String]]
  }

  /// The most answers the folder keeps; past it, it starts over.
  static let capacity = 256

  /// This process's answers, by key.
  private static let inMemory = Mutex<[[String]: [[String]]]>([:])

  /// The jobs kept for `command`, if any.
  func jobs(for command: [String]) -> [[String]]? {
    let key = Self.key(command)
    if let jobs = Self.inMemory.withLock({ $0[key] }) { return jobs }
    guard let data = try? Data(contentsOf: file(for: key)),
      let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.key == key
    else { return nil }
    Self.inMemory.withLock { $0[key] = entry.jobs }
    return entry.jobs
  }

  /// Keeps `jobs` as the answer for `command`; nil forgets the answer
  /// (its jobs failed where the driver's own run may not).
  func keep(_ jobs: [[String]]?, for command: [String]) {
    let key = Self.key(command)
    Self.inMemory.withLock { $0[key] = jobs }
    let file = file(for: key)
    guard let jobs else {
      try? FileManager.default.removeItem(at: file)
      return
    }
    let files = FileManager.default
    if ((try? files.contentsOfDirectory(atPath: folder.path)) ?? []).count >= Self.capacity {
      try? files.removeItem(at: folder)
    }
    try? files.createDirectory(at: folder, withIntermediateDirectories: true)
    guard let data = try? JSONEncoder().encode(Entry(key: key, jobs: jobs)) else { return }
    try? data.write(to: file, options: .atomic)
  }

  /// The file of the answer for `key`.
  private func file(for key: [String]) -> URL {
    folder.appendingPathComponent(ContentHash.of(Data(key.joined(separator: "\u{0}").utf8)) + ".json")
  }

  /// A planned command, with the content of each file it reads its
  /// arguments from (`@.../sources`: SwiftPM rewrites those lists when a
  /// chapter gains or loses a file, while the command stays the same) and
  /// the identity of the driver it starts.
  static func key(_ command: [String]) -> [String] {
    let driver = command.first.flatMap { FileStatus($0, followingLinks: true) }
    return command
      + command.filter { $0.hasPrefix("@") }.map {
        (try? String(contentsOfFile: String($0.dropFirst()), encoding: .utf8)) ?? ""
      }
      + [driver.map { "driver \($0.inode):\($0.size):\($0.modified)" } ?? "no driver"]
  }
}
