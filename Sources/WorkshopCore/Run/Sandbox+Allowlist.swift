import Foundation

/// What a sandboxed process sees of the machine: an allowlist, not the
/// machine with a few folders hidden (see
/// ``Sandbox/wrap(_:writable:readOnly:reaching:temporaryFolder:asInit:)``).
///
/// ```swift
/// Sandbox.visibleFolders(reaching: ["/course/.build/workshop-grade/0/.build/workshop/debug/Tests.xctest"])
/// // ["/course/.build/workshop-grade/0"]: the job's copy, not the course above it
/// ```
extension Sandbox {
  /// One top-level entry of the machine a sandboxed process sees.
  enum SystemEntry: Equatable {
    /// A folder (or file), bound read-only.
    case folder(String)
    /// A link, made again inside (`/bin` → `usr/bin` on a merged `/usr`).
    case link(String, target: String)
  }

  /// What every sandboxed process sees of the machine, read-only: the
  /// system's programs and libraries, `/sys` (the C library reads the
  /// processor count there), of `/etc` only what the dynamic linker, the C
  /// library and the compiler's driver read, and the toolchain's folder.
  static let systemEntries: [SystemEntry] = {
    var entries: [SystemEntry] = []
    let files = FileManager.default
    let top = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys"]
    let etc = [
      "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/passwd",
      "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone", "/etc/os-release",
      "/etc/debian_version",
    ]
    for path in top + etc where FileStatus(path) != nil {
      if top.contains(path), let target = try? files.destinationOfSymbolicLink(atPath: path) {
        entries.append(.link(path, target: target))
      } else if Files.realPath(path) != nil {
        entries.append(.folder(path))
      }
    }
    if let toolchain = toolchainFolder,
      !top.contains(where: { toolchain == $0 || toolchain.hasPrefix($0 + "/") })
    {
      entries.append(.folder(toolchain))
    }
    return entries
  }()

  /// The folder of the toolchain `swift` runs from (`/opt/swift` for
  /// `/opt/swift/usr/bin/swift`, followed through links); nil when it is
  /// not installed.
  static let toolchainFolder: String? = {
    guard let swift = Subprocess.executable(named: "swift"), let real = Files.realPath(swift) else {
      return nil
    }
    // `swift` is often a link to `swift-driver` beside it.
    let bin = (real as NSString).deletingLastPathComponent
    guard bin.hasSuffix("/usr/bin") else { return bin }
    let folder = String(bin.dropLast("/usr/bin".count))
    return folder.isEmpty ? "/usr" : folder
  }()

  /// The folders a process that runs and reads `reaching` must see besides
  /// the system's: for a folder (a package a build reads), that folder; for
  /// a program in a build folder, the package above that build folder (its
  /// libraries and the files its checks read); for any other program
  /// outside the system's folders, its own folder.
  static func visibleFolders(reaching: [String]) -> [String] {
    let system = systemEntries.map { entry -> String in
      switch entry {
      case .folder(let path), .link(let path, _): return path
      }
    }
    var folders: Set<String> = []
    for path in reaching {
      if system.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { continue }
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
      if isFolder.boolValue {
        folders.insert(path)
      } else if let build = path.range(of: "/.build/", options: .backwards) {
        folders.insert(String(path[..<build.lowerBound]))
      } else {
        folders.insert((path as NSString).deletingLastPathComponent)
      }
    }
    // A folder inside another is seen through it.
    return folders.filter { folder in !folders.contains { folder.hasPrefix($0 + "/") } }.sorted()
  }
}
