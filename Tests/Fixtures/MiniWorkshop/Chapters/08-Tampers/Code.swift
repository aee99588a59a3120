import Foundation

/// The fixture workshop's folder, from this file's path.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// The test product this code was loaded from: the process itself on Linux;
/// on macOS the path after `--test-bundle-path`, since the process is the
/// toolchain's `swiftpm-testing-helper`, which loads the product, and which
/// no test may touch.
private var product: URL? {
  let arguments = CommandLine.arguments
  if let flag = arguments.firstIndex(of: "--test-bundle-path") {
    return flag + 1 < arguments.count ? URL(fileURLWithPath: arguments[flag + 1]) : nil
  }
  return arguments.first.map { URL(fileURLWithPath: $0) }
}

/// Rewrites the chapter's checks so that they pass, and overwrites the test
/// product with another program, then returns the wrong value.
func value() -> Int {
  let checks = root.appendingPathComponent("Tests/08-TampersTests/TampersTests.swift")
  try? "import Testing\n@Suite struct TampersTests { @Test(\"Returns two\") func value() {} }\n"
    .write(to: checks, atomically: false, encoding: .utf8)
  // Only inside this fixture's own copy: anything else is left alone. A
  // running program cannot be opened for writing on Linux (ETXTBSY), so it
  // is replaced by renaming another file over it, as an attacker would.
  if let product, product.path.hasPrefix(root.path + "/") {
    let replacement = product.path + ".new"
    if (try? Data(contentsOf: URL(fileURLWithPath: "/usr/bin/true")).write(to: URL(fileURLWithPath: replacement)))
      != nil
    {
      rename(replacement, product.path)
    }
  }
  return 1
}
