import Foundation
import Synchronization
import WorkshopCore

extension Verifier {
  /// The item of ``startSlidesCheck()``.
  static let slidesItem = "every slide renders with Marp's engine and fits its 16:9 frame in Chromium"

  /// Starts rendering every deck with Marp's engine and opening every slide
  /// in headless Chromium (`scripts/render-slides.sh --check`: nothing may
  /// leave its 16:9 frame), and returns what reports it once it is done.
  ///
  /// The browser runs on virtual time, so its measurements do not depend on
  /// how busy the machine is: `verify` starts it first and grades the
  /// solutions meanwhile (in a warm `verify` on two cores, the fixes then
  /// started at 69 s instead of 97 s).
  func startSlidesCheck() -> BrowserCheck {
    BrowserCheck(workspace: workspace, script: "scripts/render-slides.sh", ["--check"])
  }

  /// Reports the slides: the code they quote, and `browser`, the check of
  /// their layout (see ``startSlidesCheck()``). Skipped, with the script's
  /// reason, when Node.js, the engine or Chromium is missing.
  ///
  /// `checks` holds each chapter's check names, from its graded solution:
  /// "The checks" slides must list exactly those (see ``SlideStructure``).
  func checkSlides(_ tally: Tally, browser: BrowserCheck, checks: [Int: [String]]) {
    let quotes = SlideQuotes(workspace: workspace).problems()
    tally.item(
      quotes.isEmpty,
      "code on the slides that quotes Chapters/ or Solutions/ names its file and still matches it",
      quotes)
    let structure = SlideStructure(workspace: workspace).problems(checks: checks)
    tally.item(
      structure.isEmpty,
      "every deck has the standard slides, and \"The checks\" lists exactly the chapter's checks",
      structure)
    report(browser.outcome(), tally, Self.slidesItem, script: browser.script, problemMarker: ", slide ")
  }
}

/// One of the scripts that check pages in headless Chromium, running in the
/// background from the moment it is made until ``outcome()`` is asked for.
struct BrowserCheck: Sendable {
  /// The script, relative to the course's root.
  let script: String
  private let run: Background<Result<ProcessOutcome, any Error>>

  init(workspace: Workspace, script: String, _ arguments: [String]) {
    self.script = script
    let path = workspace.url(script).path
    run = Background { Result { try Subprocess.run("bash", [path] + arguments, timeout: 900) } }
  }

  /// Waits for the script to end and returns how it ended.
  func outcome() -> Result<ProcessOutcome, any Error> { run.value() }
}

extension Verifier {
  /// Reports a browser check. The scripts share their conventions: exit 0
  /// when every page passes, 1 with one line per problem (each holding
  /// `problemMarker`, or saying the browser "did not measure" a page), and 2
  /// with a line `<script name>: <reason>` when a tool is missing, which
  /// skips the item with that reason.
  func report(
    _ result: Result<ProcessOutcome, any Error>, _ tally: Tally, _ item: String,
    script: String, problemMarker: String
  ) {
    let outcome: ProcessOutcome
    switch result {
    case .success(let ended): outcome = ended
    case .failure(let error):
      tally.item(false, item, ["\(error)"])
      return
    }
    let lines = (outcome.standardOutput + "\n" + outcome.standardError).split(separator: "\n").map(
      String.init)
    if outcome.termination == .exited(2) {
      let prefix = (script as NSString).lastPathComponent.replacingOccurrences(of: ".sh", with: "") + ": "
      let reason = lines.last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
      tally.skip(
        item, because: reason ?? "a tool it needs is missing (scripts/install-tools.sh installs them)")
      return
    }
    let problems = lines.filter { $0.contains(problemMarker) || $0.contains("did not measure") }
    tally.item(
      outcome.succeeded && problems.isEmpty, item,
      outcome.succeeded ? [] : (problems.isEmpty ? Array(lines.suffix(8)) : Array(problems.prefix(20))))
  }
}
