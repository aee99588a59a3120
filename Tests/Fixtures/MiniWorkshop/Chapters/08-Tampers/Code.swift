import Foundation

/// The fixture workshop's folder, from this file's path.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// Rewrites the chapter's checks so that they pass, and overwrites the test
/// product with another program, then returns the wrong value.
func value() -> Int {
  let checks = root.appendingPathComponent("Tests/08-TampersTests/TampersTests.swift")
  try? "import Testing\n@Suite struct TampersTests { @Test(\"Returns two\") func value() {} }\n"
    .write(to: checks, atomically: false, encoding: .utf8)
  let product = URL(fileURLWithPath: CommandLine.arguments[0])
  try? Data(contentsOf: URL(fileURLWithPath: "/bin/true")).write(to: product)
  return 1
}
