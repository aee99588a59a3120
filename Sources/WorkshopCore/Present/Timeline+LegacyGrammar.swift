import CheckTranscript

/// TEMPORARY, for the migration to typed events only: the old grammar that
/// read each event's sentence, kept to compare the typed events with.
extension Timeline {
  struct LegacyStep: Equatable {
    var step: Step
    var isKnown: Bool
  }

  /// The old grammar's steps for `events`' sentences.
  package static func legacyMismatches(_ events: [RecordedEvent]) -> [String] {
    let texts = events.map(\.text)
    let services = Set(
      texts.compactMap { event -> String? in
        guard let call = Self.call(in: event),
          call.rest.hasPrefix(" called") || call.rest.isEmpty || call.rest.hasPrefix(": key seen before")
        else {
          return nil
        }
        return call.name
      })
    var old = texts.enumerated().map { index, event in
      Self.step(event, number: index + 1, services: services).step
    }
    Self.answerWhoCalled(&old)
    var new = Timeline(events: events).steps
    _ = new
    new = events.enumerated().map { index, event in
      Step(
        number: index + 1, text: event.text, kind: event.kind, from: event.from,
        to: event.kind == .tick || event.kind == .note ? nil : event.to, label: event.label,
        isWrong: event.isWrong)
    }
    Self.answerWhoCalled(&new)
    var problems: [String] = []
    for (a, b) in zip(old, new) where a != b {
      problems.append(
        "\(a.text)\n    old: \(a.kind) \(a.from.name)→\(a.to?.name ?? "-") [\(a.label)] wrong=\(a.isWrong)"
          + "\n    new: \(b.kind) \(b.from.name)→\(b.to?.name ?? "-") [\(b.label)] wrong=\(b.isWrong)")
    }
    return problems
  }

  static func step(_ raw: String, number: Int, services: Set<String>) -> LegacyStep {
    let text = raw.trimmingCharacters(in: .whitespaces)
    func make(
      _ kind: Step.Kind, _ from: Lane, _ to: Lane? = nil, _ label: String, wrong: Bool = false,
      known: Bool = true
    ) -> LegacyStep {
      LegacyStep(
        step: Step(number: number, text: raw, kind: kind, from: from, to: to, label: label, isWrong: wrong),
        isKnown: known)
    }
    func after(_ prefix: String) -> String { String(text.dropFirst(prefix.count)) }

    // The test clock.
    if text.hasPrefix("clock: ") {
      let rest = after("clock: ")
      if rest.hasPrefix("advanced to ") {
        let time = rest.dropFirst("advanced to ".count).split(separator: ",").first.map(String.init) ?? rest
        return make(.tick, .clock, nil, time)
      }
      if rest.contains("cancelled") { return make(.cancel, .code, .clock, rest) }
      let sleep = rest.components(separatedBy: " (now").first ?? rest
      return make(.call, .code, .clock, sleep)
    }
    if text.hasPrefix("hang guard: ") {
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
    if text.hasPrefix("a late fix arrives from the provider") {
      return make(.answer, Lane("provider", .service), .code, "late fix")
    }
    if let call = call(in: text) {
      return callStep(call, text: text, services: services, make: make)
    }
    // How the check played its scenario: which order of the ready jobs
    // (`Orders.explore`), which round of an overlap, how many threads.
    if text.firstMatch(of: /^(?:order \d+ of |round \d+: |\d+ threads, released at the same moment)/) != nil {
      return make(.note, .checks, nil, text)
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
  static func numbered(_ text: String, _ nouns: [String]) -> (Lane, String)? {
    for noun in nouns where text.hasPrefix(noun + " ") {
      let rest = text.dropFirst(noun.count + 1)
      let digits = rest.prefix(while: \.isNumber)
      guard !digits.isEmpty, rest.dropFirst(digits.count).hasPrefix(" ") else { continue }
      return (Lane("\(noun) \(digits)", .caller), String(rest.dropFirst(digits.count + 1)))
    }
    return nil
  }

  /// `store.save(2) returned ()` → name `store.save`, call `store.save(2)`, rest ` returned ()`.
  static func call(in text: String) -> (name: String, call: String, rest: String)? {
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

  static func callStep(
    _ call: (name: String, call: String, rest: String), text: String, services: Set<String>,
    make: (Step.Kind, Lane, Lane?, String, Bool, Bool) -> LegacyStep
  ) -> LegacyStep {
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
      return make(.call, .code, service, label, rest == " called" + " by a cancelled task", true)
    }
    if rest.hasPrefix(" returned ") || rest.hasPrefix(" threw ") {
      // The kit notes an answer that came after its caller was cancelled.
      let late = rest.hasSuffix(" (late: its caller was cancelled)")
      let value = String(
        (rest.dropFirst().split(separator: " ", maxSplits: 1).last ?? "").dropLast(
          late ? " (late: its caller was cancelled)".count : 0))
      return make(.answer, service, .code, rest.hasPrefix(" threw ") ? "threw " + value : value, late, true)
    }
    if rest.hasPrefix(": key seen before, returns ") {
      return make(
        .answer, service, .code, String(rest.dropFirst(": key seen before, returns ".count)), false, true)
    }
    if rest.hasPrefix(" cancelled") { return make(.cancel, .code, service, "cancel " + label, false, true) }
    return make(.note, service, nil, rest.trimmingCharacters(in: .whitespaces), false, true)
  }
}
