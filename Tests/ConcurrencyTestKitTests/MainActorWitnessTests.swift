import ConcurrencyTestKit
import Testing

/// An actor of the checks' own, not the main actor.
private actor Elsewhere {
  func ask() -> Bool { MainActorWitness.isRunningOnMainActor }
}

@concurrent
private func askOnThePool() async -> Bool { MainActorWitness.isRunningOnMainActor }

@Suite("MainActorWitness")
struct MainActorWitnessTests {
  @Test("Sees code on the main actor, and nowhere else")
  func answers() async {
    #expect(await MainActor.run { MainActorWitness.isRunningOnMainActor })
    #expect(await Task { @MainActor in MainActorWitness.isRunningOnMainActor }.value)
    #expect(await !askOnThePool())
    #expect(await !Elsewhere().ask())
    #expect(await !Task.detached { MainActorWitness.isRunningOnMainActor }.value)
  }

  @Test("Sees a main-actor function the moment it calls, and not after it left")
  @MainActor
  func followsTheCode() async {
    #expect(MainActorWitness.isRunningOnMainActor)
    #expect(await !askOnThePool())
    #expect(MainActorWitness.isRunningOnMainActor)
  }
}
