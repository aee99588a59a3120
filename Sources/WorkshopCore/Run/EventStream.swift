import CheckTranscript
import Foundation

/// Swift Testing's JSON event stream, version 0 (`--event-stream-version 0`):
/// the records grading reads, as Swift Testing's published schema names them
/// (`ABI.Record`: a `test` record per test, then `event` records).
///
/// Grading reads this channel, never the human-readable output, which code
/// under test could imitate by printing.
package enum EventStream {
  /// One line of the stream.
  struct Record: Decodable, Sendable {
    var version: Int
    var payload: Payload

    enum Payload: Sendable {
      case test(Test)
      case event(Event)
      case other
    }

    enum CodingKeys: String, CodingKey { case version, kind, payload }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      version = try container.decode(Int.self, forKey: .version)
      switch try container.decode(String.self, forKey: .kind) {
      case "test": payload = .test(try container.decode(Test.self, forKey: .payload))
      case "event": payload = .event(try container.decode(Event.self, forKey: .payload))
      default: payload = .other
      }
    }
  }

  /// A test or suite the run knows about (`ABI.EncodedTest`).
  struct Test: Decodable, Sendable {
    /// `suite` or `function`.
    var kind: String
    var id: String
    var name: String
    var displayName: String?
    var sourceLocation: SourceLocation?
  }

  /// Something that happened during the run (`ABI.EncodedEvent`).
  struct Event: Decodable, Sendable {
    /// `runStarted`, `testStarted`, `issueRecorded`, `valueAttached`,
    /// `testEnded`, `testSkipped`, `runEnded`, ...
    var kind: String
    var testID: String?
    var issue: Issue?
    var attachment: Attachment?
    var messages: [Message]
    var instant: Instant?
    /// The case of a parameterized check it belongs to (Swift Testing 6.3's
    /// `_testCase`; absent in 6.2 and for other checks).
    var testCase: TestCase?

    enum CodingKeys: String, CodingKey {
      case kind, testID, issue, attachment, messages, instant
      case testCase = "_testCase"
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      kind = try container.decode(String.self, forKey: .kind)
      testID = try container.decodeIfPresent(String.self, forKey: .testID)
      issue = try container.decodeIfPresent(Issue.self, forKey: .issue)
      attachment = try? container.decodeIfPresent(Attachment.self, forKey: .attachment)
      messages = try container.decodeIfPresent([Message].self, forKey: .messages) ?? []
      instant = try? container.decodeIfPresent(Instant.self, forKey: .instant)
      testCase = try? container.decodeIfPresent(TestCase.self, forKey: .testCase)
    }
  }

  /// One case of a parameterized check (`ABI.EncodedTestCase`).
  struct TestCase: Decodable, Sendable {
    var id: String
    var displayName: String?
  }

  /// A value a check attached (`ABI.EncodedAttachment`): saved to a file
  /// when the run was given `--attachments-path` (`path`), else inline, in
  /// Base64, under a key that has changed between Swift Testing's versions
  /// (`_bytes`, `bytes`).
  struct Attachment: Decodable, Sendable {
    var path: String?
    /// The attachment's content, inline or read from `path` by the grader
    /// (``TestRun``), which alone knows where it may read.
    var bytes: [UInt8]?

    enum CodingKeys: String, CodingKey {
      case path, bytes
      case experimentalBytes = "_bytes"
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      path = try? container.decodeIfPresent(String.self, forKey: .path)
      let inline =
        (try? container.decodeIfPresent(String.self, forKey: .experimentalBytes))
        ?? (try? container.decodeIfPresent(String.self, forKey: .bytes))
      bytes = inline.flatMap { Data(base64Encoded: $0) }.map(Array.init)
    }
  }

  /// When an event happened (`ABI.EncodedInstant`).
  struct Instant: Decodable, Sendable {
    /// Seconds on the process's monotonic clock.
    var absolute: Double
  }

  /// An issue recorded by a test (`ABI.EncodedIssue`).
  struct Issue: Decodable, Sendable {
    var isKnown: Bool
    var sourceLocation: SourceLocation?
  }

  /// One line of an event's human-readable description (`ABI.EncodedMessage`).
  struct Message: Decodable, Sendable {
    /// `fail`, `details`, `pass`, ...
    var symbol: String?
    var text: String
  }

  /// Where in a source file (`SourceLocation`).
  struct SourceLocation: Decodable, Sendable {
    var fileID: String?
    var line: Int
  }

  /// The checks (functions, not suites) a stream describes, in the order
  /// they are declared in their files (the stream's own order varies).
  static func checks(in records: [Record]) -> [ExpectedCheck] {
    var seen = Set<String>()
    let tests = records.compactMap { record -> Test? in
      guard case .test(let test) = record.payload, test.kind == "function", seen.insert(test.id).inserted
      else { return nil }
      return test
    }
    return
      tests
      .sorted {
        ($0.sourceLocation?.fileID ?? "", $0.sourceLocation?.line ?? 0, $0.id)
          < ($1.sourceLocation?.fileID ?? "", $1.sourceLocation?.line ?? 0, $1.id)
      }
      .map { ExpectedCheck(id: $0.id, name: $0.displayName ?? $0.name) }
  }

  /// What a run's stream says about each check.
  struct Summary: Sendable, Equatable {
    var started: Set<String> = []
    var ended: Set<String> = []
    var skipped: Set<String> = []
    /// Why each skipped check was skipped, in its trait's words.
    var skipReasons: [String: String] = [:]
    /// Each check's failures, explained.
    var issues: [String: [CheckIssue]] = [:]
    /// Whether the run reported its own end.
    var runEnded = false
    /// Checks cancelled from inside (`Test.cancel()`): they never finished.
    var cancelled: Set<String> = []
    /// The checks that said they beat (``Heartbeat``).
    var beating: Set<String> = []
    /// Issues recorded outside any check (an expectation on another thread
    /// or queue, after its check ended).
    var unattributedIssues: [CheckIssue] = []
    /// Whether records came that Swift Testing never writes: anything after
    /// the run's end, a second start or end of a check. Something else wrote
    /// to the stream.
    var isTampered = false
    /// How long each check took, in seconds, start to end.
    var durations: [String: Double] = [:]

    init() {}
  }

  /// `chunk → 0` from Swift Testing's "Test case passing 1 argument chunk →
  /// 0 to "…" started.", `a → 1, b → 2` for two arguments; nil for other words.
  static func caseLabel(_ text: String) -> String? {
    guard let match = text.firstMatch(of: #/^Test case passing \d+ arguments? (.+?) to ".*" started\.$/#)
    else {
      return nil
    }
    return String(match.1)
  }

  /// Whether `attachment` is one of the kit's beats: its bytes, inline, or
  /// the name of the file it was saved to. Only whether a run is stopped
  /// sooner depends on it, never a result.
  static func isHeartbeat(_ attachment: Attachment) -> Bool {
    if let bytes = attachment.bytes { return bytes == Heartbeat.bytes }
    guard let path = attachment.path else { return false }
    return URL(fileURLWithPath: path).lastPathComponent.hasPrefix(Heartbeat.attachmentName)
  }

  /// Reads a run's events into what happened to each check; without
  /// `verdicts`, leaves the kit's verdicts out (a look at a run still
  /// going, once a second, needs none of them).
  static func summary(of records: [Record], verdicts: Bool = true) -> Summary {
    var summary = Summary()
    var starts: [String: Double] = [:]
    // The kit attaches a failure's verdict, then records its issue, whose
    // comment is the verdict's prose. The cases of a parameterized check
    // run at once, under the check's one ID, so attachments and issues of
    // several cases can interleave: an issue takes the verdict of its
    // check whose prose it carries. A failure inside an exit test comes
    // back from its process as an issue alone, and the kit attaches its
    // verdict after the exit test (see the kit's `CrashLog`): an issue
    // without one waits for it.
    var attached: [String: [Verdict]] = [:]
    var caseLabels: [String: String] = [:]
    var waiting: [String: [(index: Int, messages: [Message], location: String?)]] = [:]
    for record in records {
      if summary.runEnded { summary.isTampered = true }
      guard case .event(let event) = record.payload else { continue }
      if event.kind == "runEnded" { summary.runEnded = true }
      let verdict = verdicts ? event.attachment?.bytes.flatMap { Verdict(attachment: $0) } : nil
      guard let id = event.testID else {
        if let verdict { attached["", default: []].append(verdict) }
        if event.kind == "issueRecorded", let issue = event.issue {
          let verdict = Self.takeVerdict(of: event.messages, from: &attached[""])
          if !issue.isKnown {
            summary.unattributedIssues.append(issueRecorded(event.messages, verdict: verdict, location: nil))
          }
        }
        continue
      }
      // Parameterized checks and exit tests report test cases; grade per check.
      switch event.kind {
      case "testStarted":
        if !summary.started.insert(id).inserted { summary.isTampered = true }
        starts[id] = event.instant?.absolute
      case "testEnded":
        if !summary.ended.insert(id).inserted { summary.isTampered = true }
        if let start = starts[id], let end = event.instant?.absolute { summary.durations[id] = end - start }
      case "testSkipped":
        summary.skipped.insert(id)
        summary.skipReasons[id] = skipReason(event.messages)
      case "testCaseStarted":
        // "Test case passing 1 argument chunk → 0 to …": the case's words.
        if let testCase = event.testCase, let text = event.messages.first?.text,
          let label = Self.caseLabel(text)
        {
          caseLabels[testCase.id] = label
        }
      case "testCancelled", "testCaseCancelled":
        summary.cancelled.insert(id)
      case "valueAttached":
        if let attachment = event.attachment, Self.isHeartbeat(attachment) {
          summary.beating.insert(id)
          continue
        }
        guard let verdict else { continue }
        if let found = waiting[id]?.firstIndex(where: { $0.messages.contains { $0.text == verdict.text } }) {
          let issue = waiting[id]!.remove(at: found)
          summary.issues[id]![issue.index] = issueRecorded(
            issue.messages, verdict: verdict, location: issue.location)
        } else {
          attached[id, default: []].append(verdict)
        }
      case "issueRecorded":
        let verdict = Self.takeVerdict(of: event.messages, from: &attached[id])
        guard let issue = event.issue, !issue.isKnown else { continue }
        let location = issue.sourceLocation.map { location in
          "\((location.fileID ?? "?").split(separator: "/").last.map(String.init) ?? "?"):\(location.line)"
        }
        var recorded = issueRecorded(event.messages, verdict: verdict, location: location)
        // A parameterized check's issue says which case it is of.
        if let testCase = event.testCase, let label = caseLabels[testCase.id] {
          recorded = recorded.rewording { "With \(label): " + $0 }
          recorded.testCase = label
        }
        // The kit's explanation of an exit test's crash joins the crash.
        if let last = summary.issues[id]?.last, let merged = mergeCrash(last, explanation: recorded) {
          summary.issues[id]![summary.issues[id]!.count - 1] = merged
          continue
        }
        // A parameterized check can record the same issue once per argument.
        if !(summary.issues[id]?.contains(recorded) ?? false) {
          summary.issues[id, default: []].append(recorded)
          if verdict == nil {
            waiting[id, default: []].append((summary.issues[id]!.count - 1, event.messages, location))
          }
        }
      default:
        continue
      }
    }
    return summary
  }
}

/// A check the build holds, known before any of them runs.
package struct ExpectedCheck: Sendable, Equatable, Codable {
  /// Swift Testing's ID: `Module.Suite/function()/File.swift:12:4`.
  package var id: String
  /// The display name, in plain words.
  package var name: String
}
