import Testing

@testable import ConcurrencyTestKit

@Suite("Watchdog")
struct WatchdogTests {
  @Test("A check stuck for good ends its process after fifteen hang bounds, saying which check and why")
  func stuckCheckEndsTheProcess() async throws {
    let result = try await #require(
      processExitsWith: .exitCode(1), observing: [\.standardErrorContent]
    ) {
      try await HangBoundTrait.$current.withValue(.milliseconds(100)) {
        try await Watchdog.watch("A check that spins") {
          var spins = 0
          while spins >= 0 { spins &+= 1 }
        }
      }
    }
    let said = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(said.contains("“A check that spins” did not finish: it was stopped after 1.5 s."), "\(said)")
    #expect(said.contains("an endless loop?"), "\(said)")
  }

  @Test("A check that ends in time is no longer watched")
  func finishedCheckIsForgotten() async throws {
    try await HangBoundTrait.$current.withValue(.milliseconds(100)) {
      try await Watchdog.watch("A check that ends") {}
    }
    #expect(!Watchdog.running.withLock { $0.checks.values.contains { $0.name == "A check that ends" } })
  }
}
