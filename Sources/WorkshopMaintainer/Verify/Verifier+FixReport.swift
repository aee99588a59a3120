import WorkshopCore

extension Verifier {
  /// Counts each chapter's graded fixes as items of `tally` (a wrong fix
  /// must compile and fail a check, a right one pass every check, each the
  /// same way in every run) and writes the chapter's line: its known blind
  /// spots, and the fixes whose failing checks vary from run to run.
  func report(
    _ results: [Int: [(Mutation, Outcome)]], blindSpots: [Int: [Mutation]], varying: [Int: [String]],
    chapters: [Curriculum.Chapter],
    _ tally: Tally
  ) {
    for chapter in chapters {
      let entries = results[chapter.number] ?? []
      var caught = 0
      var accepted = 0
      var undecided = 0
      var details: [String] = []
      for (mutation, outcome) in entries {
        let label = "\(mutation.name) (\(mutation.note))"
        switch (mutation.kind, outcome) {
        case (_, .unusable(let reason)):
          details.append("✗ \(label): \(Self.headline(of: reason))")
          tally.item(false, "\(chapter.paddedNumber) \(mutation.name)", [], quiet: true)
        case (.wrong, .graded(let report)) where Self.isUndecided(report),
          (.right, .graded(let report)) where Self.isUndecided(report):
          let names = report.failing.map(\.name).joined(separator: ", ")
          details.append(
            "? \(label): could not decide, the machine was too busy for the threads to meet: \(names)")
          tally.undecided("\(chapter.paddedNumber) \(mutation.name)")
          undecided += 1
        case (.wrong, .graded(let report)):
          if !report.compileErrors.isEmpty {
            details.append("✗ \(label): does not compile: \(firstLine(of: report.compileErrors[0]))")
            tally.item(false, "\(chapter.paddedNumber) \(mutation.name)", [], quiet: true)
          } else if report.state == .done {
            details.append("✗ wrong fix passes every check: \(label)")
            tally.item(false, "\(chapter.paddedNumber) \(mutation.name)", [], quiet: true)
          } else {
            caught += 1
            tally.item(true, "\(chapter.paddedNumber) \(mutation.name)", [], quiet: true)
            // `verify --fixes NN`: which checks catch each wrong fix, the
            // evidence behind a chapter's table of requirements and checks.
            if onlyFixesOf != nil {
              let names =
                report.failing.map(\.name) + (report.crash == nil ? [] : ["(the test process crashed)"])
              details.append(style.dim("✓ \(mutation.name): caught by " + names.joined(separator: "; ")))
            }
          }
        case (.uncaught, _):
          continue
        case (.right, .graded(let report)):
          if report.state == .done {
            accepted += 1
            tally.item(true, "\(chapter.paddedNumber) \(mutation.name)", [], quiet: true)
          } else {
            let why =
              report.compileErrors.first.map { "does not compile: " + firstLine(of: $0) }
              ?? report.failing.first.map {
                "fails: \($0.name)" + ($0.issues.first.map { " (" + firstLine(of: $0.text) + ")" } ?? "")
              }
              ?? report.crash.map { "crashed: " + firstLine(of: $0) }
              ?? "is \(report.state.rawValue)"
            details.append("✗ right fix rejected: \(label): \(why)")
            tally.item(false, "\(chapter.paddedNumber) \(mutation.name)", [], quiet: true)
          }
        }
      }
      let wrong = entries.filter { $0.0.kind == .wrong }.count
      let right = entries.count - wrong
      // Every fix that was neither caught/accepted nor undecided wrote a ✗ line.
      let ok = !details.contains { $0.hasPrefix("✗") }
      let blind = blindSpots[chapter.number] ?? []
      write(
        "  " + (ok && undecided > 0 ? style.yellow("?") : style.mark(ok))
          + " \(chapter.paddedNumber) \(chapter.title): \(caught) of \(wrong) wrong fixes caught, \(accepted) of \(right) right fixes pass"
          + (undecided == 0 ? "" : style.yellow(", \(undecided) undecided"))
          + (blind.isEmpty
            ? "" : style.dim(" (\(blind.count) known blind spot\(blind.count == 1 ? "" : "s"), not graded)"))
      )
      for line in details { write("      " + line) }
      if let names = varying[chapter.number] {
        write(
          "      "
            + style.dim(
              "same verdict in every run; which checks fail varies (the fix races, or shares state between checks): \(names.joined(separator: ", "))"
            ))
      }
    }
  }

  /// The first line of `reason`; when it only announces what follows (it
  /// ends with a colon, as "the build failed outside any chapter:" does),
  /// the first line of what follows too.
  static func headline(of reason: String) -> String {
    let lines = reason.split(separator: "\n")
    guard let first = lines.first.map(String.init) else { return reason }
    guard first.hasSuffix(":"), let next = lines.dropFirst().first(where: { !$0.allSatisfy(\.isWhitespace) })
    else { return first }
    return first + " " + next.trimmingCharacters(in: .whitespaces)
  }
}
