// A test target that exists only in the grader's builds on Linux
// (`WORKSHOP_TEST_ENTRY_POINT=1`). SwiftPM looks for a test entry point file
// in the folders above each test target, so this target is what makes it
// find `../XCTMain.swift`; learners' builds, with no such target, never do.
// It also holds the entry point's one dependency, the stream's seal
// (`StreamSeal.swift`, which the grader compiles too, in `CheckTranscript`):
// the fixtures of the runner's tests build this folder as it is.
