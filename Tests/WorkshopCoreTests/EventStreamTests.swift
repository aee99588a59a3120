import CheckTranscript
import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

/// A trimmed event stream of three tests: one passes, one fails, one never ends.
private let stream = #"""
  {"kind":"test","payload":{"id":"M.S","kind":"suite","name":"S"},"version":0}
  {"kind":"test","payload":{"displayName":"Passes","id":"M.S/a()/F.swift:1:1","kind":"function","name":"a()"},"version":0}
  {"kind":"test","payload":{"displayName":"Fails","id":"M.S/b()/F.swift:2:1","kind":"function","name":"b()"},"version":0}
  {"kind":"test","payload":{"id":"M.S/c()/F.swift:3:1","kind":"function","name":"c()"},"version":0}
  {"kind":"event","payload":{"kind":"runStarted","messages":[]},"version":0}
  {"kind":"event","payload":{"kind":"testStarted","testID":"M.S/a()/F.swift:1:1","messages":[]},"version":0}
  {"kind":"event","payload":{"kind":"testStarted","testID":"M.S/b()/F.swift:2:1","messages":[]},"version":0}
  {"kind":"event","payload":{"kind":"testStarted","testID":"M.S/c()/F.swift:3:1","messages":[]},"version":0}
  {"kind":"event","payload":{"kind":"testEnded","testID":"M.S/a()/F.swift:1:1","messages":[]},"version":0}
  {"kind":"event","payload":{"issue":{"isKnown":true},"kind":"issueRecorded","testID":"M.S/a()/F.swift:1:1","messages":[{"symbol":"fail","text":"known"}]},"version":0}
  {"kind":"event","payload":{"issue":{"isKnown":false,"sourceLocation":{"fileID":"M/F.swift","line":7,"column":3}},"kind":"issueRecorded","testID":"M.S/b()/F.swift:2:1","messages":[{"symbol":"fail","text":"Issue recorded"},{"symbol":"details","text":"Shows the results\nExpected: 1\nActual:   2"}]},"version":0}
  {"kind":"event","payload":{"kind":"testEnded","testID":"M.S/b()/F.swift:2:1","messages":[]},"version":0}
  not json at all
  """#

@Suite("Event stream")
struct EventStreamTests {
  private var summary: EventStream.Summary {
    EventStream.summary(of: EventStream.records(fromJSONLines: stream))
  }

  @Test("The checks are the functions of the stream's test records, with their display names, in order")
  func checks() {
    let checks = EventStream.checks(in: EventStream.records(fromJSONLines: stream))
    #expect(checks.map(\.name) == ["Passes", "Fails", "c()"])
    #expect(checks.first?.id == "M.S/a()/F.swift:1:1")
  }

  @Test("Each check's start, end and issues come from its events")
  func events() {
    let summary = self.summary
    #expect(summary.started == ["M.S/a()/F.swift:1:1", "M.S/b()/F.swift:2:1", "M.S/c()/F.swift:3:1"])
    #expect(summary.ended == ["M.S/a()/F.swift:1:1", "M.S/b()/F.swift:2:1"])
    #expect(!summary.runEnded)
  }

  @Test(
    "A skipped check keeps its reason, as Swift Testing words the skip",
    arguments: [
      (#"Test "Needs a tool" skipped: "xmllint is not installed here""#, "xmllint is not installed here"),
      // A name with a colon, a reason with quotes of its own, at its end too.
      (#"Test "Parses f(x:) calls" skipped: "needs "node" and "chromium"""#, #"needs "node" and "chromium""#),
      // No reason: the whole message.
      (#"Test "Plain" skipped."#, #"Test "Plain" skipped."#),
      // Nothing after the marker's quote (a forged record): the whole message, no crash.
      (#"Test "x" skipped: ""#, #"Test "x" skipped: ""#),
    ])
  func skipReason(message: String, reason: String) {
    let messages = [EventStream.Message(symbol: "skip", text: message)]
    #expect(EventStream.skipReason(messages) == reason)
  }

  @Test("A skip's reason is kept for its check")
  func skipRecords() {
    let line = #"""
      {"kind":"event","payload":{"kind":"testSkipped","testID":"M.S/d()/F.swift:4:1","messages":[{"symbol":"skip","text":"Test \"Needs a tool\" skipped: \"xmllint is not installed here\""}]},"version":0}
      """#
    let summary = EventStream.summary(of: EventStream.records(fromJSONLines: line))
    #expect(summary.skipped == ["M.S/d()/F.swift:4:1"])
    #expect(summary.skipReasons["M.S/d()/F.swift:4:1"] == "xmllint is not installed here")
  }

  @Test(
    "A failure whose message quotes a value holding U+2028, U+2029 or U+0085 is still a failure",
    arguments: ["\u{2028}", "\u{2029}", "\u{85}"])
  func separatorsInsideStrings(separator: String) {
    // As Swift Testing writes it: JSON leaves these characters unescaped
    // inside strings (a check comparing `"Hello\u{2028}Ada"` wrote this).
    let issue =
      #"{"kind":"event","payload":{"issue":{"isKnown":false,"sourceLocation":{"fileID":"M/F.swift","line":3}},"kind":"issueRecorded","messages":[{"symbol":"fail","text":"Expectation failed: (greet(\"Ada\") → \"Hello"#
      + separator + #"Ada\") == \"Hello, Ada!\""}],"testID":"M.S/b()/F.swift:2:1"},"version":0}"#
    let lines = [
      #"{"kind":"event","payload":{"kind":"testStarted","testID":"M.S/b()/F.swift:2:1","messages":[]},"version":0}"#,
      issue,
      #"{"kind":"event","payload":{"kind":"testEnded","testID":"M.S/b()/F.swift:2:1","messages":[]},"version":0}"#,
    ]
    let summary = EventStream.summary(
      of: EventStream.records(fromJSONLines: lines.joined(separator: "\n") + "\n"))
    #expect(summary.issues["M.S/b()/F.swift:2:1"]?.count == 1, "\(summary.issues)")
  }

  @Test("A stream read a piece at a time, cut anywhere, gives the records it gives read whole")
  func readInPieces() {
    let bytes = Data(stream.utf8)
    let whole = EventStream.records(fromJSONLines: stream)
    for size in [1, 7, 100, bytes.count] {
      var reader = EventStream.RecordReader()
      var offset = 0
      while offset < bytes.count {
        offset = min(offset + size, bytes.count)
        // What a watcher sees: the stream up to `offset`, from where it stopped.
        reader.read(bytes[reader.consumed..<offset])
        #expect(reader.consumed <= offset)
      }
      reader.read(bytes[reader.consumed...], final: true)
      #expect(reader.records.count == whole.count, "pieces of \(size) bytes")
      #expect(
        EventStream.summary(of: reader.records) == EventStream.summary(of: whole), "pieces of \(size) bytes")
    }
  }

  @Test("A parameterized check's issue says which case it is of")
  func caseLabels() {
    let id = "M.S/p(chunk:)/F.swift:4:1"
    let testCase = { (bytes: Int) in
      #"{"displayName":"\#(bytes - 48)","id":"Parameterized test case ID: argumentIDs: [Testing.Test.Case.Argument.ID(bytes: [\#(bytes)])], discriminator: 0, isStable: true"}"#
    }
    let lines = (48...49).flatMap { bytes in
      [
        #"{"kind":"event","payload":{"_testCase":\#(testCase(bytes)),"kind":"testCaseStarted","testID":"\#(id)","messages":[{"symbol":"default","text":"Test case passing 1 argument chunk → \#(bytes - 48) to \"Stops\" started."}]},"version":0}"#,
        #"{"kind":"event","payload":{"_testCase":\#(testCase(bytes)),"issue":{"isKnown":false},"kind":"issueRecorded","testID":"\#(id)","messages":[{"symbol":"fail","text":"Issue recorded"},{"symbol":"details","text":"Expected: []"}]},"version":0}"#,
      ]
    }
    let summary = EventStream.summary(of: EventStream.records(fromJSONLines: lines.joined(separator: "\n")))
    #expect(
      summary.issues[id]?.map(\.text) == ["With chunk → 0: Expected: []", "With chunk → 1: Expected: []"])
    #expect(summary.issues[id]?.map(\.testCase) == ["chunk → 0", "chunk → 1"])
    #expect(
      EventStream.caseLabel(#"Test case passing 2 arguments a → 1, b → "x" to "T" started."#)
        == #"a → 1, b → "x""#)
    #expect(EventStream.caseLabel("Test started.") == nil)
  }

  @Test("Known issues do not fail a check")
  func knownIssues() {
    #expect(summary.issues["M.S/a()/F.swift:1:1"] == nil)
  }

  @Test(
    "An issue keeps the check's explanation without the generic first line; where in the checks is kept, never shown"
  )
  func issueText() {
    #expect(
      summary.issues["M.S/b()/F.swift:2:1"]?.map(\.description) == [
        "Shows the results\nExpected: 1\nActual:   2"
      ]
    )
    #expect(summary.issues["M.S/b()/F.swift:2:1"]?.map(\.location) == ["F.swift:7"])
  }

  /// A check's records as the kit leaves them when it fails: the verdict
  /// attached (`attachment`'s JSON), then the issue with its prose.
  private func failure(_ attachment: String, messages: String) -> String {
    let id = "M.S/b()/F.swift:2:1"
    return [
      #"{"kind":"test","payload":{"displayName":"Fails","id":"\#(id)","kind":"function","name":"b()"},"version":0}"#,
      #"{"kind":"event","payload":{"kind":"testStarted","testID":"\#(id)","messages":[]},"version":0}"#,
      #"{"kind":"event","payload":{"attachment":\#(attachment),"kind":"valueAttached","testID":"\#(id)","messages":[]},"version":0}"#,
      #"{"kind":"event","payload":{"issue":{"isKnown":false},"kind":"issueRecorded","testID":"\#(id)","messages":\#(messages)},"version":0}"#,
      #"{"kind":"event","payload":{"kind":"testEnded","testID":"\#(id)","messages":[]},"version":0}"#,
    ].joined(separator: "\n")
  }

  private let verdict = Verdict(
    behaviour: "Shows one result", expected: "1", actual: "2",
    events: [.call("user typed \"sw\"", from: .caller("user"), label: "typed \"sw\"")])

  /// An issue's messages as Swift Testing writes them for a `#require`
  /// whose comment is `comment`.
  private func messages(comment: String) -> String {
    let details = String(decoding: (try? JSONEncoder().encode(comment)) ?? Data(), as: UTF8.self)
    return
      #"[{"symbol":"fail","text":"Expectation failed: anything"},{"symbol":"details","text":\#(details)}]"#
  }

  @Test(
    "A kit verdict comes as values from its attachment, inline under either key, and its prose replaces Swift Testing's",
    arguments: ["_bytes", "bytes"])
  func verdictAttached(key: String) throws {
    let base64 = Data(verdict.attachmentBytes).base64EncodedString()
    func issue(comment: String) throws -> CheckIssue {
      let records = EventStream.records(
        fromJSONLines: failure(#"{"\#(key)":"\#(base64)"}"#, messages: messages(comment: comment)))
      return try #require(EventStream.summary(of: records).issues["M.S/b()/F.swift:2:1"]?.first)
    }
    let paired = try issue(comment: verdict.text)
    #expect(paired.verdict == verdict)
    #expect(paired.text == verdict.text)
    // An issue that does not carry the verdict's prose is not its issue.
    let other = try issue(comment: "Some other failure")
    #expect(other.verdict == nil && other.text == "Expectation failed: anything\nSome other failure")
  }

  @Test(
    "Cases of one check failing at once each get their own verdict, whatever order the stream interleaves")
  func interleavedCases() throws {
    let id = "M.S/b()/F.swift:2:1"
    let (first, second) = (
      Verdict(behaviour: "Case 1 fails", events: [.note("one")]),
      Verdict(behaviour: "Case 2 fails", events: [.note("two")])
    )
    func attached(_ verdict: Verdict) -> String {
      let base64 = Data(verdict.attachmentBytes).base64EncodedString()
      return
        #"{"kind":"event","payload":{"attachment":{"_bytes":"\#(base64)"},"kind":"valueAttached","testID":"\#(id)","messages":[]},"version":0}"#
    }
    func issue(_ verdict: Verdict) throws -> String {
      let details = String(decoding: try JSONEncoder().encode(verdict.text), as: UTF8.self)
      return
        #"{"kind":"event","payload":{"issue":{"isKnown":false},"kind":"issueRecorded","testID":"\#(id)","messages":[{"symbol":"fail","text":"Issue recorded"},{"symbol":"details","text":\#(details)}]},"version":0}"#
    }
    let lines = [
      #"{"kind":"event","payload":{"kind":"testStarted","testID":"\#(id)","messages":[]},"version":0}"#,
      attached(first), attached(second), try issue(second), try issue(first),
      #"{"kind":"event","payload":{"kind":"testEnded","testID":"\#(id)","messages":[]},"version":0}"#,
    ]
    let issues = EventStream.summary(of: EventStream.records(fromJSONLines: lines.joined(separator: "\n")))
      .issues[id]
    #expect(issues?.map(\.verdict) == [second, first])
    #expect(issues?.map(\.text) == [second.text, first.text])
  }

  @Test("A failure inside an exit test comes back as an issue alone, and takes its verdict attached after it")
  func verdictAfterItsIssue() throws {
    let id = "M.S/b()/F.swift:2:1"
    let base64 = Data(verdict.attachmentBytes).base64EncodedString()
    let lines = [
      #"{"kind":"event","payload":{"kind":"testStarted","testID":"\#(id)","messages":[]},"version":0}"#,
      #"{"kind":"event","payload":{"issue":{"isKnown":false},"kind":"issueRecorded","testID":"\#(id)","messages":\#(messages(comment: verdict.text))},"version":0}"#,
      #"{"kind":"event","payload":{"attachment":{"_bytes":"\#(base64)"},"kind":"valueAttached","testID":"\#(id)","messages":[]},"version":0}"#,
      #"{"kind":"event","payload":{"kind":"testEnded","testID":"\#(id)","messages":[]},"version":0}"#,
    ]
    let issues = EventStream.summary(of: EventStream.records(fromJSONLines: lines.joined(separator: "\n")))
      .issues[id]
    #expect(issues?.map(\.verdict) == [verdict])
    #expect(issues?.map(\.text) == [verdict.text])
  }

  @Test("A verdict saved to a file is read only from the run's own folder, never through a link")
  func verdictSaved() throws {
    // Everything in the run's temporary folder, removed after.
    let base = try TemporaryFolder.shared.makeFolder("attachments")
    defer { try? FileManager.default.removeItem(at: base) }
    let folder = base.appendingPathComponent("run")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let saved = folder.appendingPathComponent("verdict.json")
    try Data(verdict.attachmentBytes).write(to: saved)
    let outside = base.appendingPathComponent("outside.json")
    try Data(verdict.attachmentBytes).write(to: outside)
    let link = folder.appendingPathComponent("link.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
    let messages = messages(comment: verdict.text)
    func issue(savedAt path: String) -> CheckIssue? {
      let records = EventStream.records(fromJSONLines: failure(#"{"path":"\#(path)"}"#, messages: messages))
      let read = EventStream.readingAttachments(records, savedIn: folder)
      return EventStream.summary(of: read).issues["M.S/b()/F.swift:2:1"]?.first
    }
    #expect(issue(savedAt: saved.path)?.verdict == verdict)
    #expect(issue(savedAt: folder.path + "/../" + outside.lastPathComponent)?.verdict == nil)
    #expect(issue(savedAt: outside.path)?.verdict == nil)
    #expect(issue(savedAt: link.path)?.verdict == nil)
    #expect(issue(savedAt: link.path)?.text == "Expectation failed: anything\n" + verdict.text)
    // Swift Testing names the file by the folder's real path: a folder
    // reached through a link is the same folder.
    let alias = base.appendingPathComponent("alias")
    try FileManager.default.createSymbolicLink(at: alias, withDestinationURL: folder)
    let records = EventStream.records(
      fromJSONLines: failure(#"{"path":"\#(saved.path)"}"#, messages: messages))
    let read = EventStream.readingAttachments(records, savedIn: alias)
    #expect(EventStream.summary(of: read).issues["M.S/b()/F.swift:2:1"]?.first?.verdict == verdict)
  }

  @Test("An expectation's own message is kept when there are no details")
  func plainExpectation() {
    let issue = EventStream.issueRecorded(
      [.init(symbol: "fail", text: "Expectation failed: 1 == 2")], verdict: nil, location: nil)
    #expect(issue.text == "Expectation failed: 1 == 2")
  }

  @Test("The run's end is read from its own record")
  func runEnded() {
    let ended = stream + "\n" + #"{"kind":"event","payload":{"kind":"runEnded","messages":[]},"version":0}"#
    #expect(EventStream.summary(of: EventStream.records(fromJSONLines: ended)).runEnded)
  }

  @Test("A check cancelled from inside, and issues recorded outside any check, are kept apart")
  func cancelledAndUnattributed() {
    let lines = [
      #"{"kind":"event","payload":{"kind":"testStarted","testID":"M.S/a()/F.swift:1:1","messages":[]},"version":0}"#,
      #"{"kind":"event","payload":{"kind":"testCancelled","testID":"M.S/a()/F.swift:1:1","messages":[]},"version":0}"#,
      #"{"kind":"event","payload":{"kind":"testEnded","testID":"M.S/a()/F.swift:1:1","messages":[]},"version":0}"#,
      #"{"kind":"event","payload":{"issue":{"isKnown":false},"kind":"issueRecorded","messages":[{"symbol":"fail","text":"Expectation failed: late"}]},"version":0}"#,
    ]
    let summary = EventStream.summary(of: EventStream.records(fromJSONLines: lines.joined(separator: "\n")))
    #expect(summary.cancelled == ["M.S/a()/F.swift:1:1"])
    #expect(summary.unattributedIssues == ["Expectation failed: late"])
    #expect(summary.issues.isEmpty)
  }

  @Test("An empty or garbled stream gives no checks and no end")
  func empty() {
    #expect(EventStream.records(fromJSONLines: "").isEmpty)
    #expect(EventStream.records(fromJSONLines: "{\n]]").isEmpty)
    #expect(!EventStream.summary(of: EventStream.records(fromJSONLines: "{\n]]")).runEnded)
  }
}

@Suite("Compiler and runtime diagnostics")
struct DiagnosticsTests {
  private let output = """
    [3/9] Compiling DebouncedSearch SearchModel.swift
    /work/x/Chapters/04-DebouncedSearch/SearchModel.swift:59:24: error: cannot find 'nill' in scope
    57 |       guard !query.isEmpty else {
    59 |         errorMessage = nill
       |                        `- error: cannot find 'nill' in scope
    /work/x/Chapters/04-DebouncedSearch/SearchModel.swift:59:24: error: cannot find 'nill' in scope
    /work/x/Tests/08-ActorReentrancyTests/T.swift:3:1: error: expected declaration
    error: emit-module command failed with exit code 1
    """

  @Test("Errors are found with their location and source lines, once each")
  func compilerErrors() {
    let errors = Diagnostics.compilerErrors(in: output)
    #expect(errors.map(\.line) == [59, 3])
    #expect(errors[0].path == "/work/x/Chapters/04-DebouncedSearch/SearchModel.swift")
    #expect(errors[0].text.contains("errorMessage = nill"))
  }

  @Test("A path belongs to the chapter whose folder it is in")
  func chapterOfPath() {
    #expect(Diagnostics.chapterNumber(ofPath: "/r/Chapters/04-DebouncedSearch/A.swift") == 4)
    #expect(Diagnostics.chapterNumber(ofPath: "/r/Solutions/12-Sendable/A.swift") == 12)
    #expect(Diagnostics.chapterNumber(ofPath: "/r/Tests/08-ActorReentrancyTests/T.swift") == 8)
    #expect(Diagnostics.chapterNumber(ofPath: "/r/Sources/ConcurrencyTestKit/A.swift") == nil)
  }

  @Test(
    "A compiler stopped at a limit is read from the tools' own lines, never from a quote of the learner's code"
  )
  func stoppedAtLimit() {
    // As SwiftPM prints a compiler that got SIGXCPU, trimmed.
    let stopped = """
      [1/2] Write sources
      error: compile command failed due to signal 24 (use -v to see invocation)
      Stack dump:
      0.\tProgram arguments: /opt/swift/usr/bin/swift-frontend -frontend -c -primary-file /r/Chapters/04-DebouncedSearch/Slow.swift /r/Chapters/04-DebouncedSearch/SearchModel.swift -module-name DebouncedSearch
      4.\tWhile type-checking 'T17' (at /r/Chapters/04-DebouncedSearch/Slow.swift:18:1)
      """
    #expect(Diagnostics.hitLimit(stopped))
    #expect(Diagnostics.chaptersBeingCompiled(in: stopped) == [4])
    // A compile error that quotes learner code naming another chapter's file
    // and the words of a stopped compiler.
    let quoted = """
      /r/Chapters/02-TaskGroups/A.swift:3:5: error: cannot find 'x' in scope
        3 | x // error: compile command failed due to signal 24 (0.\tWhile type-checking (at /r/Chapters/01-TaskTree/D.swift:1:1))
          |     `- error: cannot find 'x' in scope
      error: emit-module command failed with exit code 1 (use -v to see invocation)
      """
    #expect(!Diagnostics.hitLimit(quoted))
    #expect(Diagnostics.chaptersBeingCompiled(in: quoted).isEmpty)
  }

  @Test("A crash's reason is the runtime's own words")
  func crashReason() {
    let stderr = """
      noise
      _Concurrency/CheckedContinuation.swift:196: Fatal error: SWIFT TASK CONTINUATION MISUSE: profile(id:) tried to resume its continuation more than once, throwing SDKError(-1009)!
      *** Program crashed: Illegal instruction at 0x1 ***
      Thread 0 crashed:
      """
    let reasons = TestRun.crashReason(in: stderr)
    #expect(reasons.count == 2)
    #expect(reasons.first?.contains("tried to resume its continuation more than once") == true)
    #expect(reasons.last == "*** Program crashed: Illegal instruction at 0x1 ***")
  }
}

@Suite("Event stream: parameterized checks")
struct ParameterizedEventStreamTests {
  @Test("The same issue recorded by several arguments of one check is shown once")
  func duplicateIssues() {
    let issue =
      #"{"kind":"event","payload":{"issue":{"isKnown":false},"kind":"issueRecorded","testID":"M.S/p(x:)/F.swift:1:1","messages":[{"symbol":"fail","text":"Expectation failed: x"}]},"version":0}"#
    let stream = [
      #"{"kind":"test","payload":{"displayName":"Param","id":"M.S/p(x:)/F.swift:1:1","kind":"function","name":"p(x:)"},"version":0}"#,
      #"{"kind":"event","payload":{"kind":"testStarted","testID":"M.S/p(x:)/F.swift:1:1","messages":[]},"version":0}"#,
      issue, issue, issue,
      #"{"kind":"event","payload":{"kind":"testEnded","testID":"M.S/p(x:)/F.swift:1:1","messages":[]},"version":0}"#,
    ].joined(separator: "\n")
    let summary = EventStream.summary(of: EventStream.records(fromJSONLines: stream))
    #expect(summary.issues == ["M.S/p(x:)/F.swift:1:1": ["Expectation failed: x"]])
  }
}
