import Foundation
import Testing

@testable import WorkshopCore

/// Whether the slide check's tools are here: Node.js, Marp's engine and
/// Chromium (`scripts/render-slides.sh --has-tools`).
private let slideToolsHere: Bool = {
  guard MissingTool.has("node") else { return false }
  let script = courseRoot.appendingPathComponent("scripts/render-slides.sh").path
  return (try? Subprocess.run("bash", [script, "--has-tools"], timeout: 60))?.succeeded == true
}()

@Suite(
  "The slide check fails each kind of slide a room cannot read",
  .enabled(
    if: slideToolsHere,
    "Node.js, Marp's engine or Chromium: not installed here (scripts/install-tools.sh installs them)"))
struct SlideCheckTests {
  /// Renders `decks` (names under `Tests/Fixtures/SlideCheck/`) with the
  /// course's script into a folder of this test's own and checks them.
  private func check(_ decks: [String], check: Bool = true) throws -> ProcessOutcome {
    let folder = try TemporaryFolder.shared.makeFolder("slide-check")
    var environment = ProcessInfo.processInfo.environment
    // Its own folder of kept passes: nothing kept elsewhere answers for
    // these pages, and nothing is kept outside this test's folder.
    environment["BROWSER_CHECKS_FOLDER"] = folder.appendingPathComponent("kept").path
    environment["BROWSER_CHECKS_FRESH"] = "1"
    let fixtures = courseRoot.appendingPathComponent("Tests/Fixtures/SlideCheck")
    return try Subprocess.run(
      "bash",
      [courseRoot.appendingPathComponent("scripts/render-slides.sh").path]
        + (check ? ["--check"] : []) + ["--out", folder.appendingPathComponent("pages").path]
        + decks.map { fixtures.appendingPathComponent($0 + ".md").path },
      environment: environment, timeout: 300)
  }

  @Test(
    "A readable deck passes; small text, small code, faint text, overflow and a character no font has each fail, saying which"
  )
  func eachKindFails() throws {
    let outcome = try check([
      "readable", "small-text", "small-code", "faint-text", "overflow", "missing-glyph",
    ])
    let out = outcome.standardOutput + outcome.standardError
    #expect(outcome.termination == .exited(1), "\(out)")
    #expect(out.contains("readable: every slide fits"), "\(out)")
    // The first deck's slideshow, driven: one slide at a time, keys, the presenter's words.
    #expect(out.contains(": slideshow works: #1 shows [1], fitted; → #2; End #2; ← #1"), "\(out)")
    #expect(out.contains("presenter: \"Slide 2 of 2\""), "\(out)")
    #expect(out.contains("small-text, slide 2: text is 20.0px (at least 24px)"), "\(out)")
    #expect(out.contains("small-code, slide 2: code is shrunk to"), "\(out)")
    #expect(out.contains("(at least 20px): 30 lines"), "\(out)")
    #expect(out.contains("faint-text, slide 2: text is"), "\(out)")
    #expect(out.contains(":1 against its background (at least 4.5:1)"), "\(out)")
    #expect(out.contains("overflow, slide 2:") && out.contains("outside"), "\(out)")
    #expect(out.contains("missing-glyph, slide 2: no font here has \"\u{10FFFD}\" (U+10FFFD)"), "\(out)")
    for deck in ["readable", "small-text", "small-code", "faint-text"] {
      #expect(!out.contains("\(deck), slide 2: ul ends"), "\(out)")
    }
  }

  @Test("A deck that would load a picture from the network fails to render, naming it")
  func networkLoadFails() throws {
    let outcome = try check(["network"], check: false)
    let out = outcome.standardOutput + outcome.standardError
    #expect(outcome.termination == .exited(1), "\(out)")
    #expect(out.contains("network.md: the page would load"), "\(out)")
    #expect(out.contains("https://example.com/picture.png"), "\(out)")
  }

  /// VS Code's Marp extension previews a deck with Marp's default settings:
  /// no raw HTML, and emoji as pictures from a CDN.
  @Test(
    "A deck that VS Code's Marp extension would show differently (raw HTML) or load from the network (an emoji) fails, naming it",
    arguments: [
      ("html", "renders differently with Marp's default settings"),
      ("emoji", "with Marp's default settings (VS Code's extension) the deck would load"),
    ])
  func differsInVSCode(deck: String, problem: String) throws {
    let outcome = try check([deck], check: false)
    let out = outcome.standardOutput + outcome.standardError
    #expect(outcome.termination == .exited(1), "\(out)")
    #expect(out.contains("\(deck).md: \(problem)"), "\(out)")
  }
}
