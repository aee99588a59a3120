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
    let item = "every slide renders with Marp's engine and fits its 16:9 frame in Chromium"
    let outcome: ProcessOutcome
    do {
      outcome = try Subprocess.run(
        "bash", [workspace.url("scripts/render-slides.sh").path, "--check"], timeout: 900)
    } catch {
      tally.item(false, item, ["\(error)"])
      return
    }
    let lines = (outcome.standardOutput + "\n" + outcome.standardError).split(separator: "\n").map(
      String.init)
    if outcome.termination == .exited(2) {
      let reason = lines.last { $0.hasPrefix("render-slides:") }.map {
        String($0.dropFirst("render-slides: ".count))
      }
      tally.skip(
        item, because: reason ?? "a tool it needs is missing (scripts/install-tools.sh installs them)")
      return
    }
    let problems = lines.filter { $0.contains(", slide ") || $0.contains("did not measure") }
    tally.item(
      outcome.succeeded && problems.isEmpty, item,
      outcome.succeeded ? [] : (problems.isEmpty ? Array(lines.suffix(8)) : problems))
  }
}
