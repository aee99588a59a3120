import CheckTranscript

/// A check's recorded events laid out as a sequence diagram: one lane per
/// participant, one row per event, in the transcript's order and numbering.
///
/// The picture is read from the same numbered lines the learner sees under a
/// failing check, so the two can never disagree. The checks' events follow a
/// small grammar (the test kit writes `search("sw") called`, `clock:
/// advanced to t=300ms`; the checks write `user typed "sw"`, `screen shows
/// [Sweater]`, `caller 2 asks ...`), and ``init(events:expected:actual:)`` is that
/// grammar, defined here only. An event it does not know is still drawn, as a
/// note in the "checks" lane, and `verify` fails while a failing check of a
/// starter or of a wrong fix records one.
public struct Timeline: Sendable, Equatable {
  /// A participant, drawn as a vertical lane.
  public struct Lane: Sendable, Equatable, Hashable {
    public enum Role: Int, Sendable, Comparable {
      /// Who drives the code: the user, the screen, callers, threads.
      case caller
      /// The learner's code: the model, actor or function under test.
      case code
      /// What the code calls: fake services, SDKs, stores.
      case service
      /// The test clock.
      case clock

      public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var name: String
    public var role: Role

    public init(_ name: String, _ role: Role) {
      self.name = name
      self.role = role
    }

    /// The learner's code.
    public static let code = Lane("your code", .code)
    /// The clock the check moves.
    public static let clock = Lane("clock", .clock)
    /// The check itself, for events no other lane owns.
    public static let checks = Lane("checks", .caller)
  }

  /// One event, placed.
  public struct Step: Sendable, Equatable {
    public enum Kind: String, Sendable {
      /// A call or request, from one lane to another.
      case call
      /// An answer, a callback or a delivered value, back to the caller.
      case answer
      /// The code shows a value to its observer (`screen shows`, `state =`).
      case publish
      /// A cancellation, or a cancelled sleep or call.
      case cancel
      /// The test clock moved.
      case tick
      /// Something that happened within one lane.
      case note
    }

    /// The event's number in the transcript, from 1.
    public var number: Int
    /// The event as recorded.
    public var text: String
    public var kind: Kind
    public var from: Lane
    /// Where an arrow ends; nil for a note or a tick.
    public var to: Lane?
    /// What the arrow or mark says, short.
    public var label: String
    /// Something that should not have happened: a late answer used, a call
    /// by a cancelled task, a hang, the value the check did not expect.
    public var isWrong: Bool
    /// Whether the grammar knew the event.
    public var isKnown: Bool = true
  }

  /// The lanes, left to right: callers, the code, services, the clock.
  public var lanes: [Lane]
  public var steps: [Step]

  /// Lays out `events` (a transcript, oldest first). `expected` and
  /// `actual` are the check's "Expected:" and "Actual:" values: the events
  /// that show what was not expected are marked as those that should not
  /// have happened.
  public init(events: [String], expected: String? = nil, actual: String? = nil) {
    // A function that something `called` is a service; one that only
    // returns or finishes is the learner's code answering its caller.
    let services = Set(
      events.compactMap { event -> String? in
        guard let call = Self.call(in: event),
          call.rest.hasPrefix(" called") || call.rest.isEmpty || call.rest.hasPrefix(": key seen before")
        else {
          return nil
        }
        return call.name
      })
    var steps = events.enumerated().map { index, event in
      Self.step(event, number: index + 1, services: services)
    }
    Self.answerWhoCalled(&steps)
    Self.markUnexpected(expected: expected, actual: actual, in: &steps)
    Self.foldCrowds(&steps)
    self.steps = steps
    var seen: [Lane] = []
    for step in steps {
      for lane in [step.from, step.to].compactMap({ $0 }) where !seen.contains(lane) { seen.append(lane) }
    }
    if !seen.contains(.code) { seen.append(.code) }
    // Stable: within a role, lanes keep the order they first appear in.
    lanes = seen.enumerated().sorted { ($0.element.role, $0.offset) < ($1.element.role, $1.offset) }.map(
      \.element)
  }

  /// The events the grammar did not know.
  public var unknownEvents: [String] { steps.filter { !$0.isKnown }.map(\.text) }

  // MARK: - The grammar

  private static func step(_ raw: String, number: Int, services: Set<String>) -> Step {
    let text = raw.trimmingCharacters(in: .whitespaces)
    func make(
      _ kind: Step.Kind, _ from: Lane, _ to: Lane? = nil, _ label: String, wrong: Bool = false,
      known: Bool = true
    ) -> Step {
      Step(
        number: number, text: raw, kind: kind, from: from, to: to, label: label,
        isWrong: wrong, isKnown: known)
    }
    func after(_ prefix: String) -> String { String(text.dropFirst(prefix.count)) }

    // The test clock.
    if text.hasPrefix(EventWords.clock) {
      let rest = after(EventWords.clock)
      if rest.hasPrefix("advanced to ") {
        let time = rest.dropFirst("advanced to ".count).split(separator: ",").first.map(String.init) ?? rest
        return make(.tick, .clock, nil, time)
      }
      if rest.contains("cancelled") { return make(.cancel, .code, .clock, rest) }
      let sleep = rest.components(separatedBy: " (now").first ?? rest
      return make(.call, .code, .clock, sleep)
    }
    if text.hasPrefix(EventWords.hangGuard) {
      return make(.note, .code, nil, "never finished", wrong: true)
    }
    // Who drives the code.
    if text.hasPrefix("user ") { return make(.call, Lane("user", .caller), .code, after("user ")) }
    if text.hasPrefix("screen shows ") {
      return make(.publish, .code, Lane("screen", .caller), after("screen shows "))
    }
    if text.hasPrefix("screen reads: ") {
      return make(.publish, .code, Lane("screen", .caller), after("screen reads: "))
    }
    if text.hasPrefix("screen calls ") {
      return make(.call, Lane("screen", .caller), .code, after("screen calls "))
    }
    if text.hasPrefix("field shows ") {
      return make(.publish, .code, Lane("field", .caller), after("field shows "))
    }
    if text.hasPrefix("state = ") { return make(.publish, .code, Lane("screen", .caller), after("state = ")) }
    if text.hasPrefix("app records ") { return make(.call, Lane("app", .caller), .code, after("app ")) }
    if text.hasPrefix("app-switcher snapshot: ") {
      return make(.publish, .code, Lane("app switcher", .caller), after("app-switcher snapshot: "))
    }
    if let (lane, rest) = numbered(text, ["caller", "visit", "request"]) {
      if rest.hasPrefix("finished: ") {
        return make(.answer, .code, lane, String(rest.dropFirst("finished: ".count)))
      }
      // `request 2 for a.png threw ServerDown`: the code answers the request.
      for verb in [" threw ", " returned "] {
        if let range = rest.range(of: verb) {
          let value = String(rest[range.upperBound...])
          return make(.answer, .code, lane, verb == " threw " ? "threw " + value : value)
        }
      }
      if rest.contains("cancelled") { return make(.cancel, lane, .code, "cancel") }
      return make(.call, lane, .code, rest)
    }
    if text.hasPrefix("thread "), let colon = text.firstIndex(of: ":"), !text[..<colon].contains(",") {
      let lane = Lane(String(text[..<colon]), .caller)
      return make(
        .call, lane, .code, String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
    }
    for (prefix, lane) in [
      ("the screen", Lane("screen", .caller)), ("screen", Lane("screen", .caller)),
      ("the caller", Lane("caller", .caller)), ("the uploader's", Lane("caller", .caller)),
    ] where text.hasPrefix(prefix + " ") || text.hasPrefix(prefix + "'s ") {
      let rest = text.hasPrefix(prefix + " ") ? after(prefix + " ") : after(prefix + "'s ")
      if text.contains("cancel") { return make(.cancel, lane, .code, "cancel") }
      if text.contains("stop") || text.contains("lets go") { return make(.call, lane, .code, rest) }
      return make(.note, lane, nil, rest)
    }
    if text.hasPrefix("a screen asks ") {
      return make(.call, Lane("screen", .caller), .code, after("a screen asks "))
    }
    // What the code calls.
    if text.hasPrefix("SDK ") || text.hasPrefix("the SDK") || text.hasPrefix("on the main thread, the SDK") {
      let sdk = Lane("SDK", .service)
      let rest = text.hasPrefix("SDK ") ? after("SDK ") : text
      if rest.hasPrefix("calls back") { return make(.answer, sdk, .code, rest) }
      if rest.hasSuffix(" called") { return make(.call, .code, sdk, String(rest.dropLast(" called".count))) }
      if rest.hasPrefix("operation "), rest.hasSuffix(" cancelled") {
        return make(.cancel, .code, sdk, "cancel " + rest.dropLast(" cancelled".count))
      }
      if rest.hasPrefix("operation "), let colon = rest.firstIndex(of: ":") {
        return make(
          .call, .code, sdk, String(rest[rest.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
      }
      if rest.hasPrefix("the SDK's thread reports") || rest.hasPrefix("on the main thread") {
        return make(.answer, sdk, .code, rest.hasPrefix("on") ? "didFinish" : "progress")
      }
      return make(.note, sdk, nil, rest)
    }
    if text.hasPrefix("provider ") {
      let provider = Lane("provider", .service)
      let rest = after("provider ")
      if rest.hasPrefix("delivers ") { return make(.answer, provider, .code, after("provider delivers ")) }
      if rest.hasPrefix("stops by itself") { return make(.answer, provider, .code, "finished") }
      if rest.hasPrefix("started") { return make(.call, .code, provider, "start") }
      if rest.contains("stop") {
        return make(.call, .code, provider, rest.contains("again") ? "stop again" : "stop")
      }
      return make(.note, provider, nil, rest)
    }
    if text.hasPrefix("the server ") || text.hasPrefix("the request times out") {
      return make(.note, Lane("server", .service), nil, text)
    }
    if let call = call(in: text) {
      return callStep(call, text: text, services: services, make: make)
    }
    // Within the code.
    for prefix in [
      "in flight: ", "read chunk ", "job cancelled", "checksum job ", "stream: ", "the stream ",
      "the reader ",
      "the old refresh", "charge sees", "thread A got ", "three downloads ", "both threads ",
      "fetchUser was not called",
    ] where text.hasPrefix(prefix) {
      return make(text.contains("cancelled") ? .cancel : .note, .code, nil, text)
    }
    // The learner's function answering its caller: `resizeAll finished: [...]`,
    // `downloadFromFastestMirror threw Offline`, `fetchUser returns SDK operation 1`.
    let subject = text.prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
    for verb in [" finished: ", " returned ", " returns ", " threw "] where !subject.isEmpty {
      // The verb follows the function's name, or a few words about its arguments.
      guard let range = text.range(of: verb), !text[..<range.lowerBound].contains(":") else { continue }
      let value = String(text[range.upperBound...])
      return make(.answer, .code, Lane("caller", .caller), verb == " threw " ? "threw " + value : value)
    }
    return make(.note, .checks, nil, text, known: false)
  }

  /// `caller 2 asks ...` → the lane `caller 2` and `asks ...`.
  private static func numbered(_ text: String, _ nouns: [String]) -> (Lane, String)? {
    for noun in nouns where text.hasPrefix(noun + " ") {
      let rest = text.dropFirst(noun.count + 1)
      let digits = rest.prefix(while: \.isNumber)
      guard !digits.isEmpty, rest.dropFirst(digits.count).hasPrefix(" ") else { continue }
      return (Lane("\(noun) \(digits)", .caller), String(rest.dropFirst(digits.count + 1)))
    }
    return nil
  }

  /// `store.save(2) returned ()` → name `store.save`, call `store.save(2)`, rest ` returned ()`.
  private static func call(in text: String) -> (name: String, call: String, rest: String)? {
    let name = text.prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." })
    guard !name.isEmpty, name.first!.isLetter, text.dropFirst(name.count).first == "(" else { return nil }
    var depth = 0
    var inString = false
    var escaped = false
    for index in text.indices[text.index(text.startIndex, offsetBy: name.count)...] {
      let character = text[index]
      if escaped {
        escaped = false
        continue
      }
      if inString && character == "\\" {
        escaped = true
        continue
      }
      if character == "\"" { inString.toggle() }
      if inString { continue }
      if character == "(" { depth += 1 }
      if character == ")" {
        depth -= 1
        if depth == 0 {
          let end = text.index(after: index)
          return (String(name), String(text[..<end]), String(text[end...]))
        }
      }
    }
    return nil
  }

  private static func callStep(
    _ call: (name: String, call: String, rest: String), text: String, services: Set<String>,
    make: (Step.Kind, Lane, Lane?, String, Bool, Bool) -> Step
  ) -> Step {
    let (name, label, rest) = call
    // `store.save` is the store's; `search` is the search service's.
    let owner =
      name.split(separator: ".").count > 1
      ? String(name.split(separator: ".").dropLast().joined(separator: ".")) : name
    guard services.contains(name) else {
      // The learner's own function, answering whoever called it.
      if rest.hasPrefix(" runs in") { return make(.note, .code, nil, label, false, true) }
      let value = rest.trimmingCharacters(in: .whitespaces)
      return make(.answer, .code, Lane("caller", .caller), value.isEmpty ? label : value, false, true)
    }
    let service = Lane(owner, .service)
    if rest.isEmpty || rest.hasPrefix(" called") {
      return make(.call, .code, service, label, rest == " called" + EventWords.byCancelledTask, true)
    }
    if rest.hasPrefix(" returned ") || rest.hasPrefix(" threw ") {
      // The kit notes an answer that came after its caller was cancelled.
      let late = rest.hasSuffix(EventWords.lateAnswer)
      let value = String(
        (rest.dropFirst().split(separator: " ", maxSplits: 1).last ?? "").dropLast(
          late ? EventWords.lateAnswer.count : 0))
      return make(.answer, service, .code, rest.hasPrefix(" threw ") ? "threw " + value : value, late, true)
    }
    if rest.hasPrefix(": key seen before, returns ") {
      return make(
        .answer, service, .code, String(rest.dropFirst(": key seen before, returns ".count)), false, true)
    }
    if rest.hasPrefix(" cancelled") { return make(.cancel, .code, service, "cancel " + label, false, true) }
    return make(.note, service, nil, rest.trimmingCharacters(in: .whitespaces), false, true)
  }

  /// More than ``crowd`` numbered lanes of one kind (ten callers) share one
  /// lane, `callers 1–10`, and each label says which one it was.
  static let crowd = 4

  private static func foldCrowds(_ steps: inout [Step]) {
    var numbered: [String: [Int]] = [:]
    for lane in Set(steps.flatMap { [$0.from, $0.to].compactMap { $0 } }) where lane.role == .caller {
      guard let (noun, number) = nounAndNumber(lane.name) else { continue }
      numbered[noun, default: []].append(number)
    }
    for (noun, numbers) in numbered where numbers.count > crowd {
      let shared = Lane("\(noun)s \(numbers.min()!)–\(numbers.max()!)", .caller)
      func member(_ lane: Lane?) -> Int? {
        guard let lane, let (laneNoun, number) = nounAndNumber(lane.name), laneNoun == noun else {
          return nil
        }
        return number
      }
      for index in steps.indices {
        if let number = member(steps[index].from) {
          steps[index].from = shared
          steps[index].label = "\(number): " + steps[index].label
        } else if let number = member(steps[index].to) {
          steps[index].to = shared
          steps[index].label = "\(number): " + steps[index].label
        }
      }
    }
  }

  /// `caller 10` → (`caller`, 10).
  private static func nounAndNumber(_ name: String) -> (String, Int)? {
    let parts = name.split(separator: " ")
    guard parts.count == 2, let number = Int(parts[1]) else { return nil }
    return (String(parts[0]), number)
  }

  /// The learner's function answers whoever called it last (`screen calls
  /// refresh()` … `refresh() returned`), not a caller of its own.
  private static func answerWhoCalled(_ steps: inout [Step]) {
    let generic = Lane("caller", .caller)
    var lastCaller: Lane?
    for index in steps.indices {
      let step = steps[index]
      if step.to == .code, step.from.role == .caller, step.kind == .call { lastCaller = step.from }
      if step.from == .code, step.to == generic, step.kind == .answer, let lastCaller {
        steps[index].to = lastCaller
      }
    }
  }

  /// Values too common to point at one event: `nil`, `none`, `[]`, `0`.
  static let vagueValues: Set<String> = ["nil", "none", "[]", "[:]", "()", "true", "false", "0", "\"\""]

  /// Marks what the check did not expect. A count that came out too high
  /// (`Expected: 1`, `Actual: 3`) marks the calls to the service called
  /// that many times, after the expected ones. Otherwise the last arrow
  /// whose label shows the "Actual:" value: a publication or an answer to a
  /// caller first, any other arrow else. `"got Token(fresh-1)"` is also
  /// looked for without its first word, and a vague value (`nil`) not at all.
  private static func markUnexpected(expected: String?, actual: String?, in steps: inout [Step]) {
    let trimmed = { (text: String?) in text?.trimmingCharacters(in: .whitespaces) }
    if let wanted = trimmed(expected).flatMap({ Int($0) }), let got = trimmed(actual).flatMap({ Int($0) }),
      got > wanted
    {
      let calls = Dictionary(
        grouping: steps.indices.filter { steps[$0].kind == .call && steps[$0].to?.role == .service },
        by: { steps[$0].to! })
      for (_, indices) in calls where indices.count == got {
        for index in indices.dropFirst(wanted) { steps[index].isWrong = true }
      }
      return
    }
    guard var value = trimmed(actual), !vagueValues.contains(value) else { return }
    if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
      value = String(value.dropFirst().dropLast())
    }
    let candidates =
      [value] + (value.firstIndex(of: " ").map { [String(value[value.index(after: $0)...])] } ?? [])
    for candidate in candidates where candidate.count >= 3 && !vagueValues.contains(candidate) {
      let arrows = steps.indices.filter { steps[$0].to != nil && steps[$0].label.contains(candidate) }
      let shown = arrows.last { [.publish, .answer].contains(steps[$0].kind) && steps[$0].to != .code }
      if let index = shown ?? arrows.last {
        steps[index].isWrong = true
        return
      }
    }
  }
}

extension Timeline {
  /// The timelines of a failing check: one per distinct recorded log, with
  /// the verdict that goes with it.
  public static func verdicts(of check: CheckResult) -> [Verdict] {
    var seen: [[String]] = []
    return check.issues.compactMap { issue in
      var body = issue
      if let range = issue.range(of: "\n(at ", options: .backwards) {
        body = String(issue[..<range.lowerBound])
      }
      guard let verdict = Verdict(parsing: body), !verdict.events.isEmpty, !seen.contains(verdict.events)
      else {
        return nil
      }
      seen.append(verdict.events)
      return verdict
    }
  }
}
