import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// A fake build folder holding `WorkshopPackageTests.xctest` as each platform lays it out.
private func buildFolder(bundle: Bool) throws -> URL {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("launcher-\(UUID().uuidString)")
  let product = folder.appendingPathComponent("WorkshopPackageTests.xctest")
  if bundle {
    let macOS = product.appendingPathComponent("Contents/MacOS")
    try FileManager.default.createDirectory(at: macOS, withIntermediateDirectories: true)
    try Data().write(to: macOS.appendingPathComponent("WorkshopPackageTests"))
  } else {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data().write(to: product)
  }
  return folder
}

private let helper = TestLauncher.TestingHelper(
  helper: "/Xcode/Toolchain/usr/libexec/swift/pm/swiftpm-testing-helper",
  frameworkPaths: ["/Xcode/Platforms/MacOSX.platform/Developer/Library/Frameworks"],
  libraryPaths: ["/Xcode/Platforms/MacOSX.platform/Developer/usr/lib"])

@Suite("Platform differences")
struct PlatformTests {
  @Test("On Linux the test product is the executable SwiftPM linked, run directly")
  func direct() throws {
    let folder = try buildFolder(bundle: false)
    defer { try? FileManager.default.removeItem(at: folder) }
    let launcher = TestLauncher(kind: .direct)
    let product = try launcher.product(in: folder)
    #expect(product.lastPathComponent == "WorkshopPackageTests.xctest")
    let command = launcher.command(product: product, arguments: ["--filter", "X"], environment: ["A": "1"])
    #expect(command.executable == product.path)
    #expect(command.arguments == ["--filter", "X", "--testing-library", "swift-testing"])
    #expect(command.environment == ["A": "1"])
  }

  @Test(
    "On macOS the executable inside the bundle runs through SwiftPM's testing helper, as swift test runs it")
  func testingHelper() throws {
    let folder = try buildFolder(bundle: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let launcher = TestLauncher(kind: .testingHelper(helper))
    let product = try launcher.product(in: folder)
    #expect(product.path.hasSuffix("WorkshopPackageTests.xctest/Contents/MacOS/WorkshopPackageTests"))
    let command = launcher.command(
      product: product, arguments: ["--filter", "X"], environment: ["DYLD_LIBRARY_PATH": "/mine"])
    #expect(command.executable == helper.helper)
    #expect(
      command.arguments == [
        "--test-bundle-path", product.path, "--filter", "X", product.path, "--testing-library",
        "swift-testing",
      ])
    // The caller's paths come first, as SwiftPM appends its own.
    #expect(
      command.environment["DYLD_LIBRARY_PATH"]
        == "/mine:\(product.deletingLastPathComponent().path):/Xcode/Platforms/MacOSX.platform/Developer/usr/lib"
    )
    #expect(
      command.environment["DYLD_FRAMEWORK_PATH"]
        == "/Xcode/Platforms/MacOSX.platform/Developer/Library/Frameworks")
    #expect(command.environment["DYLD_INSERT_LIBRARIES"] == nil)
    // A ThreadSanitizer build needs its runtime loaded before the bundle, as swift test does it.
    var sanitizing = helper
    sanitizing.threadSanitizerRuntime = "/Xcode/tsan.dylib"
    let sanitized = TestLauncher(kind: .testingHelper(sanitizing)).command(
      product: product, arguments: [], environment: [:], sanitizer: .thread)
    #expect(sanitized.environment["DYLD_INSERT_LIBRARIES"] == "/Xcode/tsan.dylib")
  }

  @Test(
    "On macOS the helper and Swift Testing are found in Xcode, a swift.org toolchain or the Command Line Tools"
  )
  func findHelper() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent(
      "toolchains-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: base) }
    func make(_ path: String, executable: Bool = false) throws {
      let url = base.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: executable ? url.deletingLastPathComponent() : url, withIntermediateDirectories: true)
      if executable {
        try Data().write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
      }
    }
    let helperPath = "usr/libexec/swift/pm/swiftpm-testing-helper"
    // Xcode: Testing.framework in the macOS platform's developer folder.
    try make("Xcode/Toolchain/" + helperPath, executable: true)
    try make("Xcode/Platform/Developer/Library/Frameworks/Testing.framework")
    try make("Xcode/Platform/Developer/usr/lib")
    let xcode = try TestLauncher.TestingHelper.find(
      toolchain: base.appendingPathComponent("Xcode/Toolchain/usr"),
      platform: base.appendingPathComponent("Xcode/Platform").path)
    #expect(xcode.helper == base.appendingPathComponent("Xcode/Toolchain/" + helperPath).path)
    #expect(
      xcode.frameworkPaths == [
        base.appendingPathComponent("Xcode/Platform/Developer/Library/Frameworks").path
      ])
    #expect(xcode.libraryPaths == [base.appendingPathComponent("Xcode/Platform/Developer/usr/lib").path])
    #expect(xcode.threadSanitizerRuntime == nil)
    // ThreadSanitizer's runtime is the clang resource folder's, the newest if several.
    for version in ["16", "17"] {
      try make(
        "Xcode/Toolchain/usr/lib/clang/\(version)/lib/darwin/libclang_rt.tsan_osx_dynamic.dylib",
        executable: true)
    }
    let sanitizing = try TestLauncher.TestingHelper.find(
      toolchain: base.appendingPathComponent("Xcode/Toolchain/usr"),
      platform: base.appendingPathComponent("Xcode/Platform").path)
    #expect(
      sanitizing.threadSanitizerRuntime
        == base.appendingPathComponent(
          "Xcode/Toolchain/usr/lib/clang/17/lib/darwin/libclang_rt.tsan_osx_dynamic.dylib"
        )
        .path)
    // Command Line Tools: no platform folder; Swift Testing beside the toolchain.
    try make("CLT/" + helperPath, executable: true)
    try make("CLT/Library/Developer/Frameworks/Testing.framework")
    let tools = try TestLauncher.TestingHelper.find(
      toolchain: base.appendingPathComponent("CLT/usr"), platform: nil)
    #expect(tools.frameworkPaths == [base.appendingPathComponent("CLT/Library/Developer/Frameworks").path])
    // swift.org: Swift Testing inside the toolchain, before the platform's.
    try make("Org/" + helperPath, executable: true)
    try make("Org/usr/lib/swift/macosx/testing/Testing.framework")
    let org = try TestLauncher.TestingHelper.find(
      toolchain: base.appendingPathComponent("Org/usr"),
      platform: base.appendingPathComponent("Xcode/Platform").path)
    #expect(org.frameworkPaths.first == base.appendingPathComponent("Org/usr/lib/swift/macosx/testing").path)
    // Without a helper, or without Swift Testing anywhere, it says what to install.
    try make("Bare/usr/bin")
    #expect {
      try TestLauncher.TestingHelper.find(toolchain: base.appendingPathComponent("Bare/usr"), platform: nil)
    } throws: { "\($0)".contains("testing helper is not at") && "\($0)".contains("Xcode 26") }
    try make("NoTesting/" + helperPath, executable: true)
    #expect {
      try TestLauncher.TestingHelper.find(
        toolchain: base.appendingPathComponent("NoTesting/usr"), platform: nil)
    } throws: { "\($0)".contains("Swift Testing was found neither") }
  }

  @Test("The toolchain is the one the compiler on PATH belongs to")
  func toolchain() throws {
    let usr = try TestLauncher.toolchainFolder()
    #expect(usr.lastPathComponent == "usr")
    #expect(FileManager.default.isExecutableFile(atPath: usr.appendingPathComponent("bin/swiftc").path))
  }

  @Test("A build folder without a test product is a clear error")
  func missingProduct() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "launcher-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect {
      try TestLauncher(kind: .direct).product(in: folder)
    } throws: { error in
      String(describing: error).contains("no test product was found")
    }
  }

  @Test("This platform's launcher is found")
  func platform() throws {
    let launcher = try TestLauncher.platform.get()
    #if os(macOS)
      guard case .testingHelper(let found) = launcher.kind else {
        Issue.record("expected the testing helper on macOS, got \(launcher.kind)")
        return
      }
      #expect(FileManager.default.isExecutableFile(atPath: found.helper))
    #else
      #expect(launcher.kind == .direct)
    #endif
  }

  @Test("Compiler paths are made relative also when they spell the workspace's real path")
  func realPaths() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID().uuidString)")
    let real = base.appendingPathComponent("real")
    let link = base.appendingPathComponent("link")
    try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
    defer { try? FileManager.default.removeItem(at: base) }
    let workspace = Workspace(root: link, curriculum: Curriculum(title: "Test", chapters: []))
    // The compiler prints the real path: on macOS /private/var/..., not /var/...
    let resolved = try #require(realpath(real.path, nil))
    defer { free(resolved) }
    let error = "\(String(cString: resolved))/Chapters/04-DebouncedSearch/SearchModel.swift:3:1: error: x"
    #expect(workspace.relativize(error) == "Chapters/04-DebouncedSearch/SearchModel.swift:3:1: error: x")
    #expect(workspace.relativize("\(link.path)/Tests/A.swift") == "Tests/A.swift")
  }

  @Test("Signals are named by the C library's constants, which differ between platforms")
  func signalNames() {
    #expect(signalName(SIGBUS) == "SIGBUS")
    #expect(signalName(SIGSEGV) == "SIGSEGV")
    #expect(signalName(SIGTRAP) == "SIGTRAP")
    #expect(signalName(250) == "signal 250")
  }
}
