// The test product's entry point on Linux, written out so that SwiftPM need
// not discover the tests.
//
// Without this file SwiftPM generates the same entry point on Linux, plus a
// module listing every XCTest test case, which it finds in the compiler's
// index; so every build on Linux indexes every module while it compiles.
// The checks are Swift Testing tests, found at run time, and there are no
// XCTest tests to list: with this file the grader builds without an index
// (`--disable-index-store`), about a third of a cold build's time.
//
// SwiftPM reads this file on Linux only (never on macOS, and Xcode never),
// and runs `swift test` through it as through the generated one:
// `--testing-library swift-testing` runs the Swift Testing tests, anything
// else runs XCTest's (none), which also answers `--dump-tests-json`.

#if canImport(Testing)
  import Testing
#endif
#if canImport(XCTest)
  import XCTest
#endif

@main
struct TestEntryPoint {
  static func main() async {
    let arguments = CommandLine.arguments
    let library = zip(arguments, arguments.dropFirst())
      .first { $0.0 == "--testing-library" }?.1.lowercased() ?? "xctest"
    #if canImport(Testing)
      if library == "swift-testing" {
        await Testing.__swiftPMEntryPoint() as Never
      }
    #endif
    #if canImport(XCTest)
      XCTMain([]) as Never
    #endif
  }
}
