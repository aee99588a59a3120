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
public struct TestLauncher: Sendable, Equatable {
  /// How a platform starts a test product.
  public enum Kind: Sendable, Equatable {
    /// Run the product as an executable (Linux).
    case direct
    /// Run the product through SwiftPM's testing helper (macOS).
    case testingHelper(TestingHelper)
  }

  /// SwiftPM's testing helper and the loader paths `swift test` gives it.
  public struct TestingHelper: Sendable, Equatable {
    /// `<toolchain>/usr/libexec/swift/pm/swiftpm-testing-helper`.
    public var helper: String
    /// For `DYLD_FRAMEWORK_PATH`: the toolchain's own Swift Testing, if it has
    /// one, and the platform's `Developer/Library/Frameworks`.
    public var frameworkPaths: [String]
    /// For `DYLD_LIBRARY_PATH`: the toolchain's own Swift Testing, if it has one,
    /// and the platform's `Developer/usr/lib`.
    public var libraryPaths: [String]

    public init(helper: String, frameworkPaths: [String], libraryPaths: [String]) {
      self.helper = helper
      self.frameworkPaths = frameworkPaths
      self.libraryPaths = libraryPaths
    }
  }

  public var kind: Kind

  public init(kind: Kind) {
    self.kind = kind
  }

  /// The command that runs the checks of `product` with Swift Testing's `arguments`.
  public struct Command: Sendable, Equatable {
    public var executable: String
    public var arguments: [String]
    public var environment: [String: String]
  }

  /// The test product SwiftPM linked into a build's `debug` folder: the
  /// executable on Linux, the executable inside the bundle on macOS.
  public func product(in folder: URL) throws -> URL {
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

  /// The command line and environment that run `product`'s Swift Testing checks.
  ///
  /// Mirrors SwiftPM's `TestRunner`: on macOS the helper gets the product after
  /// `--test-bundle-path` and again after the arguments, and the loader paths
  /// are appended to any the caller already set.
  public func command(
    product: URL, arguments: [String], environment: [String: String]
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
  public static let platform: Result<TestLauncher, GradingError> = {
    #if os(macOS)
      return Result { try TestLauncher(kind: .testingHelper(findTestingHelper())) }
        .mapError { $0 as? GradingError ?? GradingError(description: "\($0)") }
    #else
      return .success(TestLauncher(kind: .direct))
    #endif
  }()

  #if os(macOS)
    /// Finds the testing helper of the toolchain that `swift build` uses, and
    /// the macOS platform's developer folders, as `swift test` does.
    private static func findTestingHelper() throws -> TestingHelper {
      let toolchain = try swiftExecutable().deletingLastPathComponent().deletingLastPathComponent()
      let helper = toolchain.appendingPathComponent("libexec/swift/pm/swiftpm-testing-helper")
      guard FileManager.default.isExecutableFile(atPath: helper.path) else {
        throw GradingError(
          description: """
            cannot run the checks: SwiftPM's testing helper is not at \(helper.path).
            The workshop needs Xcode 26 or newer (Swift 6.2), or a swift.org toolchain 6.2 or newer.
            """)
      }
      var libraryPaths: [String] = []
      var frameworkPaths: [String] = []
      // A swift.org toolchain carries its own Swift Testing; SwiftPM puts it first.
      let ownTesting = toolchain.appendingPathComponent("lib/swift/macosx/testing")
      if FileManager.default.fileExists(atPath: ownTesting.path) {
        libraryPaths.append(ownTesting.path)
        frameworkPaths.append(ownTesting.path)
      }
      // Xcode keeps Testing.framework in the macOS platform's developer folder.
      if let platform = try? xcrun(["--sdk", "macosx", "--show-sdk-platform-path"]) {
        frameworkPaths.append(platform + "/Developer/Library/Frameworks")
        libraryPaths.append(platform + "/Developer/usr/lib")
      }
      return TestingHelper(helper: helper.path, frameworkPaths: frameworkPaths, libraryPaths: libraryPaths)
    }

    /// The real `swift` the grader's builds run: the first on `PATH`, or, when
    /// that is Xcode's `/usr/bin` shim, the one `xcrun` picks.
    private static func swiftExecutable() throws -> URL {
      let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
      for folder in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swift")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else { continue }
        let real = candidate.resolvingSymlinksInPath()
        if real.path != "/usr/bin/swift" { return real }
        break
      }
      return URL(fileURLWithPath: try xcrun(["--find", "swift"])).resolvingSymlinksInPath()
    }

    private static func xcrun(_ arguments: [String]) throws -> String {
      let outcome = try Subprocess.run("/usr/bin/xcrun", arguments, timeout: 60)
      guard outcome.succeeded else {
        throw GradingError(
          description: "xcrun \(arguments.joined(separator: " ")) failed: \(outcome.standardError)")
      }
      return outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
  #endif
}
