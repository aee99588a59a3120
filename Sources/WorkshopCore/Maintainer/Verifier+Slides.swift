import Foundation

extension Verifier {
  /// Renders every deck with Marp's engine and opens every slide in headless
  /// Chromium (`scripts/render-slides.sh --check`): nothing may leave its
  /// 16:9 frame. Skipped, with the script's reason, when Node.js, the engine
  /// or Chromium is missing.
  func checkSlides(_ tally: Tally) {
    let quotes = SlideQuotes(workspace: workspace).problems()
    tally.item(
      quotes.isEmpty,
      "code on the slides that quotes Chapters/ or Solutions/ names its file and still matches it",
      quotes)
    runBrowserCheck(
      tally, "every slide renders with Marp's engine and fits its 16:9 frame in Chromium",
      script: "scripts/render-slides.sh", ["--check"], problemMarker: ", slide ")
  }
}

extension Verifier {
  /// Runs one of the scripts that check pages in headless Chromium, which
  /// share their conventions: exit 0 when every page passes, 1 with one line
  /// per problem (each holding `problemMarker`, or saying the browser "did
  /// not measure" a page), and 2 with a line `<script name>: <reason>` when a
  /// tool is missing, which skips the item with that reason.
  func runBrowserCheck(
    _ tally: Tally, _ item: String, script: String, _ arguments: [String], problemMarker: String
  ) {
    let outcome: ProcessOutcome
    do {
      outcome = try Subprocess.run("bash", [workspace.url(script).path] + arguments, timeout: 900)
    } catch {
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
