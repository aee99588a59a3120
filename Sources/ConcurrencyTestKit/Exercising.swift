import Testing

/// Names the declaration of the learner's code a check exercises: the
/// function, initializer or property the failure points at.
///
/// The runner reads it from the check's attribute (or, failing that, from
/// the nearest suite that has one) and points a failing check at that
/// declaration's line in the learner's file as it is now, not at a `TODO`
/// that may be long gone:
///
///     @Suite("06 Continuations, exactly once", .exercising("ProfileClient.profile(id:)"))
///     struct ContinuationsTests {
///       @Test("Returns the profile when the SDK reports only a profile")
///       func profileOnly() async throws { ... }
///
///       @Test("Resumes once", .exercising("ResumeOnce.resume(with:)"))
///       func racing() async throws { ... }
///     }
///
/// A failing `profileOnly()` then shows
/// `→ Chapters/06-Continuations/ProfileBridge.swift:36: profile(id:)`.
///
/// The name is `Type.member(labels:)`, `Type.member`, `member(labels:)`, or
/// a type's name alone. `workshop verify` checks that every check of the
/// course names one, and that it is declared in the starter and in the
/// solution.
///
/// It is read as written, so give it a string literal. It changes one thing
/// about how the check runs: the check is watched (see ``Watchdog``), so a
/// check stuck for good ends the test process instead of hanging it.
public struct Exercising: TestTrait, SuiteTrait, TestScoping {
  /// The declaration, as written in the trait.
  public var declaration: String

  /// A suite's name applies to each of its checks that names none.
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await Watchdog.watch(test.displayName ?? test.name, function)
  }
}

extension Trait where Self == Exercising {
  /// The check exercises `declaration` of the learner's code (see ``Exercising``).
  public static func exercising(_ declaration: String) -> Self {
    Exercising(declaration: declaration)
  }
}
