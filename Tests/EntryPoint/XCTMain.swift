// The grader's test entry point on Linux, written out so that SwiftPM need
// not discover the tests.
//
// Without it SwiftPM generates an entry point on Linux, plus a module listing
// every XCTest test case, which it reads from the compiler's index: so every
// build there indexes every module it compiles. The checks are Swift Testing
// tests, found at run time, and none are XCTest's: with this entry point the
// grader builds without an index (`--disable-index-store`), about a third less
// time for a cold build.
//
// Only the grader's builds use it: SwiftPM looks for this file in the folders
// above each test target, and only with `WORKSHOP_TEST_ENTRY_POINT=1` does the
// manifest declare the test target below it (`Anchor`). Learners' `swift test`
// never sees it, for with an entry point file `swift test` runs Swift Testing
// only when told to (`--enable-swift-testing`). SwiftPM reads none on macOS.
//
// It answers as the generated one does: `--testing-library swift-testing`
// runs the Swift Testing tests, anything else XCTest's (there are none).

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
    let library =
      zip(arguments, arguments.dropFirst())
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
