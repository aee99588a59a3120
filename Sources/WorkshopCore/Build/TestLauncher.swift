import Foundation

/// How the checks in a built test product are started, the way SwiftPM itself
/// starts Swift Testing on each platform.
///
/// This is the one place where running checks differs between Linux and macOS;
/// grading, crash narrowing, time limits and the event stream above it are the
/// same code on both:
/// - On Linux, SwiftPM links `<Package>PackageTests.xctest` as an executable,
///   and the checks run by starting it.
/// - On macOS the same path is a loadable bundle. `swift test` starts the
///   toolchain's `swiftpm-testing-helper`, which loads the bundle's executable
///   and calls its entry point, with the macOS platform's developer frameworks
///   (where Xcode keeps `Testing.framework`) on the dynamic loader's paths.
///
/// The test process is the launched process itself on both platforms, so a
/// crash still ends it with a signal and a time limit still kills its group.
package struct TestLauncher: Sendable, Equatable {
  /// How a platform starts a test product.
  package enum Kind: Sendable, Equatable {
    /// Run the product as an executable (Linux).
    case direct
    /// Run the product through SwiftPM's testing helper (macOS).
    case testingHelper(TestingHelper)
  }

  /// SwiftPM's testing helper and the loader paths `swift test` gives it.
  package struct TestingHelper: Sendable, Equatable {
    /// `<toolchain>/usr/libexec/swift/pm/swiftpm-testing-helper`.
    var helper: String
    /// For `DYLD_FRAMEWORK_PATH`: the folders that hold `Testing.framework`
    /// and the platform's developer frameworks.
    var frameworkPaths: [String]
    /// For `DYLD_LIBRARY_PATH`: the folders that hold Swift Testing's
    /// libraries and the platform's developer libraries.
    var libraryPaths: [String]
    /// ThreadSanitizer's runtime, which must be loaded before the test
    /// bundle is: SwiftPM inserts it the same way for `swift test --sanitize=thread`.
    var threadSanitizerRuntime: String?

    init(
      helper: String, frameworkPaths: [String], libraryPaths: [String], threadSanitizerRuntime: String? = nil
    ) {
      self.helper = helper
      self.frameworkPaths = frameworkPaths
      self.libraryPaths = libraryPaths
      self.threadSanitizerRuntime = threadSanitizerRuntime
    }
  }

  var kind: Kind

  /// The command that runs the checks of `product` with Swift Testing's `arguments`.
  package struct Command: Sendable, Equatable {
    var executable: String
    var arguments: [String]
    var environment: [String: String]

    package init(executable: String, arguments: [String], environment: [String: String]) {
      self.executable = executable
      self.arguments = arguments
      self.environment = environment
    }
  }

  /// The test product SwiftPM linked into a build's `debug` folder: the
  /// executable on Linux, the executable inside the bundle on macOS.
  func product(in folder: URL) throws -> URL {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    guard let bundle = names.sorted().first(where: { $0.hasSuffix("PackageTests.xctest") }) else {
      throw GradingError(description: "the build succeeded but no test product was found in \(folder.path)")
    }
    let url = folder.appendingPathComponent(bundle)
    switch kind {
    case .direct:
      return url
    case .testingHelper:
      return url.appendingPathComponent("Contents/MacOS")
        .appendingPathComponent(String(bundle.dropLast(".xctest".count)))
    }
  }

  /// The programs that run `product`'s checks: the product itself, and on
  /// macOS the toolchain's testing helper, which loads the product into its
  /// own process. Code under test runs in that process, so without a
  /// sandbox it can write to either.
  func programs(running product: URL) -> [URL] {
    switch kind {
    case .direct: [product]
    case .testingHelper(let helper): [URL(fileURLWithPath: helper.helper), product]
    }
  }

  /// What each of ``programs(running:)`` is now, by path: the product as the
  /// file system describes it (its build is recorded the same way), the
  /// helper by content (it is small, and nothing should ever change it).
  func identities(running product: URL) -> [String: String] {
    var identities: [String: String] = [:]
    for program in programs(running: product) {
      identities[program.path] =
        program == product ? Fingerprint.identity(of: program) : ContentHash.of(program)
    }
    return identities
  }

  /// The command line and environment that run `product`'s Swift Testing checks.
  ///
  /// Mirrors SwiftPM's `TestRunner`: on macOS the helper gets the product after
  /// `--test-bundle-path` and again after the arguments, and the loader paths
  /// are appended to any the caller already set.
  func command(
    product: URL, arguments: [String], environment: [String: String], sanitizer: Sanitizer? = nil
  ) -> Command {
    let testing = ["--testing-library", "swift-testing"]
    switch kind {
    case .direct:
      return Command(executable: product.path, arguments: arguments + testing, environment: environment)
    case .testingHelper(let helper):
      var environment = environment
      func append(_ key: String, _ paths: [String]) {
        let all = (environment[key].map { [$0] } ?? []) + paths
        if !all.isEmpty { environment[key] = all.joined(separator: ":") }
      }
      append("DYLD_LIBRARY_PATH", [product.deletingLastPathComponent().path] + helper.libraryPaths)
      append("DYLD_FRAMEWORK_PATH", helper.frameworkPaths)
      if sanitizer == .thread, let runtime = helper.threadSanitizerRuntime {
        append("DYLD_INSERT_LIBRARIES", [runtime])
      }
      return Command(
        executable: helper.helper,
        arguments: ["--test-bundle-path", product.path] + arguments + [product.path] + testing,
        environment: environment)
    }
  }
}

// MARK: - The launcher of the platform this runner was built for

extension TestLauncher {
  /// The launcher for this platform, found once per run.
  static let platform: Result<TestLauncher, GradingError> = {
    #if os(macOS)
      return Result {
        let platform = try? Subprocess.run(
          "xcrun", ["--sdk", "macosx", "--show-sdk-platform-path"], timeout: 60)
        return try TestLauncher(
          kind: .testingHelper(
            .find(
              toolchain: toolchainFolder(),
              platform: platform.flatMap { $0.succeeded ? $0.standardOutput : nil }?
                .trimmingCharacters(in: .whitespacesAndNewlines))))
      }
      .mapError { $0 as? GradingError ?? GradingError(description: "\($0)") }
    #else
      return .success(TestLauncher(kind: .direct))
    #endif
  }()

  /// The `usr` folder of the toolchain the grader's builds use.
  ///
  /// Asks the compiler on `PATH`, as `swift build` finds it, so Xcode's
  /// `/usr/bin` shims, `TOOLCHAINS`, swift.org toolchains and swiftly's
  /// proxies all lead to the toolchain that really builds.
  static func toolchainFolder() throws -> URL {
    let outcome = try Subprocess.run("swiftc", ["-print-target-info"], timeout: 60)
    struct TargetInfo: Decodable {
      struct Paths: Decodable { var runtimeResourcePath: String }
      var paths: Paths
    }
    guard outcome.succeeded,
      let info = try? JSONDecoder().decode(TargetInfo.self, from: Data(outcome.standardOutput.utf8))
    else {
      throw GradingError(description: "cannot find the Swift toolchain: swiftc -print-target-info failed")
    }
    // runtimeResourcePath is <toolchain>/usr/lib/swift.
    return URL(fileURLWithPath: info.paths.runtimeResourcePath).deletingLastPathComponent()
      .deletingLastPathComponent()
  }
}

extension TestLauncher.TestingHelper {
  /// The testing helper of the toolchain whose `usr` folder is `usr`, and the
  /// folders `swift test` puts on the loader's paths, keeping those that exist.
  ///
  /// Swift Testing lives in the toolchain itself (swift.org toolchains), in
  /// the macOS platform's developer folder (Xcode), or beside the toolchain
  /// (Command Line Tools).
  static func find(toolchain usr: URL, platform: String?) throws -> Self {
    let files = FileManager.default
    let helper = usr.appendingPathComponent("libexec/swift/pm/swiftpm-testing-helper").path
    let needs = "The workshop needs Xcode 26 or newer (Swift 6.2), or a swift.org toolchain 6.2 or newer."
    guard files.isExecutableFile(atPath: helper) else {
      throw GradingError(
        description: "cannot run the checks: SwiftPM's testing helper is not at \(helper).\n\(needs)")
    }
    let root = usr.deletingLastPathComponent().path
    let ownTesting = usr.appendingPathComponent("lib/swift/macosx/testing").path
    let platformPaths = platform.map { platform in
      (
        frameworks: [
          platform + "/Developer/Library/Frameworks", platform + "/Developer/Library/PrivateFrameworks",
        ],
        libraries: [platform + "/Developer/usr/lib"]
      )
    }
    let frameworks =
      ([ownTesting, root + "/Library/Developer/Frameworks"] + (platformPaths?.frameworks ?? []))
      .filter { files.fileExists(atPath: $0) }
    let libraries = ([ownTesting, root + "/Library/Developer/usr/lib"] + (platformPaths?.libraries ?? []))
      .filter { files.fileExists(atPath: $0) }
    let hasTesting =
      frameworks.contains { files.fileExists(atPath: $0 + "/Testing.framework") }
      || libraries.contains { files.fileExists(atPath: $0 + "/libTesting.dylib") }
    guard hasTesting else {
      throw GradingError(
        description: """
          cannot run the checks: Swift Testing was found neither in the toolchain at \(root) \
          nor in the macOS platform folder (\(platform ?? "xcrun found none")).
          \(needs)
          """)
    }
    // <usr>/lib/clang/<version>/lib/darwin/libclang_rt.tsan_osx_dynamic.dylib
    let clang = usr.appendingPathComponent("lib/clang")
    let threadSanitizer = ((try? files.contentsOfDirectory(atPath: clang.path)) ?? []).sorted().reversed()
      .map { clang.path + "/" + $0 + "/lib/darwin/libclang_rt.tsan_osx_dynamic.dylib" }
      .first { files.fileExists(atPath: $0) }
    return Self(
      helper: helper, frameworkPaths: frameworks, libraryPaths: libraries,
      threadSanitizerRuntime: threadSanitizer)
  }
}
