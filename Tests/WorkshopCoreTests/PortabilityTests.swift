import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// The rule names the check reports for `source`, against a package declaring `macOS`.
private func rules(_ source: String, macOS: Int? = 15) -> [String] {
  Portability.findings(inSource: source, path: "File.swift", declaredMacOS: macOS).map(\.rule)
}

// Sources under test are raw string literals: the check reads them as text,
// so this file passes the check it tests.
@Suite("Portability check")
struct PortabilityTests {
  @Test(
    "A Linux-only API outside a guarded branch is reported",
    arguments: [
      ("import Glibc", "glibc"),
      (#"let status = try String(contentsOfFile: "/proc/\(pid)/status")"#, "proc-filesystem"),
      (#"var actions = posix_spawn_file_actions_t()"#, "spawn-types"),
      (#"var thread = pthread_t()"#, "pthread-value"),
      (#"let fd = epoll_create1(0)"#, "linux-interfaces"),
      (#"let arguments = ["bwrap", "--die-with-parent"]"#, "bubblewrap"),
      (#"try FileManager.default.copyItem(atPath: "/bin/true", toPath: product)"#, "tool-paths"),
    ])
  func linuxOnly(line: String, rule: String) {
    #expect(rules(line) == [rule])
    #expect(rules("#if canImport(Darwin)\n\(line)\n#endif") == [rule], "a Darwin branch is no guard")
    #expect(rules("#if !os(Linux)\n\(line)\n#endif") == [rule], "a negated guard is no guard")
  }

  @Test("A tool's path that both platforms have is accepted")
  func sharedToolPaths() {
    #expect(rules(#"let tool = "/usr/bin/true"; let shell = "/bin/sh"; let copy = "/bin/cp""#) == [])
  }

  @Test(
    "A Linux-only API in a branch compiled only on Linux is accepted",
    arguments: [
      "#if canImport(Glibc)\n  import Glibc\n#endif",
      #"#if os(Linux)\#nlet path = "/proc/self/status"\#n#endif"#,
      #"#if canImport(Darwin)\#n  var a: posix_spawnattr_t? = nil\#n#else\#n  var a = posix_spawnattr_t()\#n#endif"#,
      "#if canImport(Darwin)\n  import Darwin\n#elseif canImport(Glibc)\n  import Glibc\n#endif",
      #"#if os(Linux)\#n  #if DEBUG\#n    let fd = eventfd(0, 0)\#n  #endif\#n#endif"#,
    ])
  func guarded(source: String) {
    #expect(rules(source).isEmpty)
  }

  @Test("Darwin is only imported in a branch for Apple platforms")
  func darwin() {
    #expect(rules("import Darwin") == ["darwin"])
    #expect(rules("#if canImport(Darwin)\nimport Darwin\n#endif").isEmpty)
    #expect(rules("#if canImport(Glibc)\nimport Glibc\n#else\nimport Darwin\n#endif").isEmpty)
  }

  @Test("A macOS 15 API needs macOS 15 declared in Package.swift")
  func availability() {
    let source = "import Synchronization\nlet count = Mutex(0)\nstruct S: TaskExecutor {}"
    #expect(rules(source, macOS: nil) == ["synchronization", "synchronization", "task-executors"])
    #expect(rules(source, macOS: 14) == ["synchronization", "synchronization", "task-executors"])
    #expect(rules(source, macOS: 15).isEmpty)
    #expect(rules("Task(executorPreference: executor) {}", macOS: 13) == ["task-executors"])
  }

  @Test("A macOS 26 API is reported under macOS 15 unless the file checks its availability")
  func newerThanDeclared() {
    #expect(rules("Task.immediate { await work() }") == ["macos-26"])
    #expect(rules(#"Task(name: "upload") {}"#) == ["macos-26"])
    #expect(rules("if #available(macOS 26, *) {\n  Task.immediate { }\n}").isEmpty)
    #expect(rules("Task.immediate { }", macOS: 26).isEmpty)
  }

  @Test("Comments and multi-line or raw string literals are not code")
  func textIsNotCode() {
    #expect(rules("// import Glibc, then read /proc/self").isEmpty)
    #expect(rules("let x = 1  // Mutex(0)", macOS: nil).isEmpty)
    #expect(rules(#"let source = """\#n  import Glibc\#n  """"#).isEmpty)
    #expect(rules(##"let pattern = #""/proc/"#"##).isEmpty)
    #expect(rules(#"let url = "https://example.org"; let p = "/proc/1""#) == ["proc-filesystem"])
  }

  @Test(
    "The declared macOS version is read from the manifest's platforms",
    arguments: [
      ("platforms: [.macOS(.v15)],", 15 as Int?),
      ("platforms: [.iOS(.v18), .macOS(\"26.0\")],", 26),
      ("platforms: [.macOS(.v10_15)],", 10),
      ("// platforms: [.macOS(.v15)],", nil),
      ("targets: [],", nil),
    ])
  func declared(manifest: String, version: Int?) {
    #expect(Portability.declaredMacOS(inManifest: manifest) == version)
  }
}
