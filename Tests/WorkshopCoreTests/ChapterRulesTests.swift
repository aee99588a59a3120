import Foundation
import Testing

@testable import WorkshopCore
@testable import WorkshopInstructor
@testable import WorkshopLearner
@testable import WorkshopMaintainer

@Suite("Reading Swift as the compiler does")
struct SwiftTokensTests {
  /// The identifiers of `source`, in order.
  func names(_ source: String) -> [String] {
    SwiftTokens.read(source).filter { $0.kind == .identifier }.map(\.text)
  }

  @Test(
    "Comments and string text are not code; interpolations are",
    arguments: [
      (#"let s = "exit(0)"; go()"#, ["let", "s", "go"]),
      ("/* a /* nested */ exit() */ go()", ["go"]),
      ("// exit()\ngo()", ["go"]),
      (#"print("\(getenv("X"))")"#, ["print", "getenv"]),
      (##"let s = #"\"#; exit(1)"##, ["let", "s", "exit"]),
      (##"let s = #"a \#(exit(1)) \(no)"#"##, ["let", "s", "exit"]),
      (###"let s = ##"a "# \#(no) \##(exit(1))"##"###, ["let", "s", "exit"]),
      ("let s = \"\"\"\n  exit(0) \"quoted\" \\(go())\n  \"\"\"\nrun()", ["let", "s", "go", "run"]),
      ("`exit`(0)", ["exit"]),
      ("let s = \"unterminated\nexit(0)", ["let", "s", "exit"]),
    ])
  func codeOnly(source: String, expected: [String]) {
    #expect(names(source) == expected)
  }

  @Test("Attributes and # keywords are read with their line")
  func attributes() {
    let tokens = SwiftTokens.read("import Foundation\n@`_cdecl`(\"x\")\nfunc f() { #file }")
    #expect(tokens.contains(SwiftTokens.Token(kind: .attribute, text: "_cdecl", line: 2)))
    #expect(tokens.contains(SwiftTokens.Token(kind: .pound, text: "file", line: 3)))
  }

  @Test(
    "A slash that could open a regex literal is its own token; a division is not",
    arguments: [
      ("let r = /\"/; exit(0)", true),
      ("let r = #/a/#", true),
      ("f(/a/)", true),
      ("let x = a / b", false),
      ("let x = a/b", false),
      ("x /= 2", false),
      ("let x = (a) / 2", false),
    ])
  func regex(source: String, opens: Bool) {
    #expect(SwiftTokens.read(source).contains { $0.kind == .regexLiteral } == opens)
  }
}

@Suite("What a chapter may contain")
struct ChapterRulesTests {
  let chapter = Curriculum.Chapter(
    number: 4, name: "DebouncedSearch", title: "T", summary: "", files: [], hints: [], starterFails: [])

  func reasons(_ source: String) -> [String] {
    ChapterRules.violations(in: ["Code.swift": source], of: chapter).map(\.description)
  }

  @Test(
    "Code that reaches the toolchain, the process image or its surroundings is found, with its line",
    arguments: [
      // Linker options and load-time constructors.
      ("@section(\".swift1_autolink_entries\") @used\nlet options = (0x2D, 0x42)", 2),
      ("@_section(\".init_array\") @_used let start: @convention(c) () -> Void = { }", 2),
      ("@c func fwrite() {}", 1),
      ("@_cdecl(\"fwrite\") public func replaced() {}", 1),
      ("@`_silgen_name`(\"swift_task_create\") func create()", 1),
      ("@_dynamicReplacement(for: value) func forged() -> Int { 2 }", 1),
      ("@main struct App { static func main() {} }", 1),
      // The process and its surroundings, however they are spelled.
      ("func f() { Glibc.exit(0) }", 1),
      ("func f() { Foundation.exit(0) }", 1),
      ("func f() { let stop = exit; stop(0) }", 1),
      ("func exit() {}\nfunc f() { exit(0) }", 1),
      ("let token = String(cString: getenv(\"SECRET_TOKEN\"))", 1),
      ("let all = ProcessInfo.processInfo.environment", 1),
      ("let path = CommandLine.arguments[1]", 1),
      ("func f() { _ = write(5, \"{}\", 2) }", 1),
      (#"let data = try? Data(contentsOf: URL(fileURLWithPath: "/dev/fd/3"))"#, 1),
      ("let handle = dlopen(nil, 0)", 1),
      ("print(\"\\(getenv(\"HOME\")!)\")", 1),
      ("let s = #\"\\\"#; let t = getenv(\"X\")", 1),
      // Imports.
      ("public import Testing", 1),
      ("@testable import XCTest", 1),
      ("import Glibc", 1),
      ("import func Darwin.exit", 1),
      ("import Foundation\nimport Dispatch\nimport SwiftGlibc", 1),
      // A pattern the scan cannot read past.
      ("let r = /\"/; let t = 1", 1),
      // Found by a blind attack on the rules, each compiling with Swift 6.
      ("import Foundation\n// note\rimport Glibc\nfunc boom() { // x\r  exit(42)\n}", 2),
      ("func r() -> Regex<Substring> { return/\"\"\"/ }\nimport Glibc\n// \"\"\"", 1),
      ("func r() throws -> Regex<Substring> { try!/\\/*/ }\nfunc boom() { exit(0) }\n// */", 1),
      ("let s = \"\\(/a/)\"", 1),
      ("import\u{0C}Glibc", 1),
      ("func boom() { Glibc\u{0C}.exit(42) }", 1),
      ("func env() -> [String: String] { Foundation\u{0B}.ProcessInfo.processInfo.environment }", 1),
      ("prefix operator ¬\nprefix func ¬ <T>(_ x: T) -> T { x }\nfunc boom() { ¬exit(0) }", 1),
      ("prefix operator .!.\nprefix func .!. <T>(_ x: T) -> T { x }\nfunc boom() { .!.exit(42) }", 1),
      ("macro m<T>(_ v: T) -> (T, String) = #`externalMacro`(module: \"Evil\", type: \"X\")", 1),
      ("func ~= (pattern: Never, value: Int) -> Bool {}\nfunc boom() { if case exit(42) = 0 {} }", 1),
      (
        "struct Decoy { var exit = 0 }\nfunc second<A, B>(_ a: A, _ b: B) -> B { b }\nlet f = second(0, exit)",
        1
      ),
      ("let f = true ? exit : exit", 2),
      ("struct S { var write = 0 }\nfunc w() { _ = (write)(2, nil, 3) }", 1),
      ("func w() { _ = S.init(write: 0); let f = { (write)(2, nil, 3) } }", 1),
      ("let write = 0\nfunc w() { _ = (write)(2, nil, 3) }", 1),
      ("let text = try? String(contentsOf: URL(string: \"file:///proc/self/environ\")!, encoding: .utf8)", 1),
      ("func f(_ d: Data, _ u: URL) throws { try d.write(to: u) }", 1),
      ("let ok = Bundle(path: \"/tmp/x\")?.load()", 1),
      ("func f() { Thread.exit() }", 1),
      ("let e = type(of: Pipe().fileHandleForWriting).standardError", 2),
      ("@_originallyDefinedIn(module: \"Grader\", Linux 1.0)\npublic func report() -> Int { 42 }", 1),
      ("func f(_ p: UnsafeRawPointer) -> Int { p.load(as: Int.self) }", 1),
      // The second blind attack.
      ("let quote = #\"\"\"#\nimport Glibc\nfunc boom() { exit(1) }\n// \"\"\"#", 2),
      ("func boom() {\n  let x = 0\n  _ = x/*\n*//\"\"\"/\n  exit(2)\n}\n// \"\"\"", 1),
      ("let `let` = 0\nfunc boom() { _ = `let`\n  exit(3) }", 1),
      ("let x\u{301}func = 0\nfunc boom() { _ = x\u{301}func\nexit(30) }", 1),
      ("import\u{A0}Glibc", 1),
      ("func boom() { Glibc\u{A0}.exit(4) }", 1),
      (
        "func never(_ c: Int32) -> Never { fatalError() }\nfunc run(_ g: (Int32) -> Never = true ? exit : never) { g(5) }",
        1
      ),
      (
        "func ~= (f: (Int32) -> Never, v: Int) -> Bool { f(Int32(v)) }\nfunc boom() { switch 6 { case 0, exit: break; default: break } }",
        1
      ),
      (
        "func ~= (a: Never, b: Int) -> Bool {}\nlet `enum` = 27; switch `enum` { case exit(27): break; default: break }",
        1
      ),
      ("func f() { if let write = Optional(1) { print(write) }; _ = write(1, \"x\", 1) }", 1),
      ("let o: (String, Int32) -> Int32 = open\nprint(1)", 1),
      ("func f() { Foundation.Thread.exit() }", 1),
      ("typealias T = Thread", 1),
      ("func f() { _ = gsignal(9) }", 1),
      ("typealias D = Data\nlet d = try? D(contentsOf: u)", 1),
      ("final class O { var x = 0 }\nlet p = Unmanaged.passUnretained(O()).toOpaque()", 2),
      ("let a = Array<Int>(unsafeUninitializedCapacity: 4) { _, n in n = 4 }", 1),
      ("let `a)b` = 0\nfunc boom() { print(\"\\(`a)b`)\") }", 2),
      ("@DebugDescription struct P { var debugDescription: String { \"p\" } }", 1),
      ("@abi(func puts2() -> Int32)\npublic func myputs() -> Int32 { 0 }", 1),
      // Strict on purpose: a name the C library has, used on its own.
      ("func f(signal: Int) { print(signal) }", 1),
      ("actor Log { func write(_ l: String) {}\n func add() { write(\"a\") } }", 1),
    ])
  func refused(source: String, count: Int) {
    let found = reasons(source)
    #expect(found.count >= count, "\(found)")
    #expect(found.allSatisfy { $0.hasPrefix("Code.swift:") })
  }

  @Test(
    "What acts at link or load time, or at test discovery, is refused, however it is spelled",
    arguments: [
      "@section(\".swift1_autolink_entries\") @used\nlet options = (0x2D, 0x42)",
      "@_section(\".init_array\") @_used let start: @convention(c) () -> Void = { }",
      "@c func fwrite() {}",
      "@_cdecl(\"fwrite\") public func replaced() {}",
      "@`_silgen_name`(\"swift_task_create\") func create()",
      "@_dynamicReplacement(for: value) func forged() -> Int { 2 }",
      "@main struct App { static func main() {} }",
      "public import Testing",
      "@testable import XCTest",
      "macro m<T>(_ v: T) -> (T, String) = #`externalMacro`(module: \"Evil\", type: \"X\")",
      "@_originallyDefinedIn(module: \"Grader\", Linux 1.0)\npublic func report() -> Int { 42 }",
      "@abi(func puts2() -> Int32)\npublic func myputs() -> Int32 { 0 }",
      "let `a)b` = 0\nfunc boom() { print(\"\\(`a)b`)\") }",
      // Behind a regex literal, where the tokens may take code for a pattern.
      "func r() -> Regex<Substring> { return/\"\"\"/ }\n@_cdecl(\"fwrite\") func w() {}\n// \"\"\"",
      "let r = /a/\nimport Testing",
      "let r = /a/\n@ `_silgen_name`(\"x\") func x()",
    ])
  func refusedAtLinkOrLoad(source: String) {
    let found = ChapterRules.violations(in: ["Code.swift": source], of: chapter)
    #expect(found.contains { $0.isRefused }, "\(found)")
  }

  @Test(
    "Ordinary code the compiler accepts is built and graded, at most listed for review",
    arguments: [
      "func check() { assert(!Thread.isMainThread) }",
      "let width = ProcessInfo.processInfo.activeProcessorCount",
      "let endpoint = URL(string: \"https://example.com/search\")!",
      "final class Door {\n  func open() {}\n  func read() -> Int { 0 }\n  func write(_ v: Int) {}\n  func remove() {}\n  func close() {}\n  deinit { close() }\n}",
      "final class Feed { let signal = AsyncStream<Int>.makeStream() }",
      "let pattern = /[a-z]+/\nfunc matches(_ s: String) -> Bool { s.wholeMatch(of: pattern) != nil }",
      "func slow() { Thread.sleep(forTimeInterval: 0.3) }",
      "import Dispatch\nfunc wait() { DispatchQueue.main.sync {} }",
      "func debug() { print(getenv(\"HOME\") != nil) }",
      "// Testing the pattern below, as XCTest users would.\nfunc isWord(_ s: String) -> Bool { s.wholeMatch(of: /[a-z]+/) != nil }",
      "import Foundation\nfunc size() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: \"/\"))?.count ?? 0 }",
    ])
  func ordinaryFixesBuilt(source: String) {
    let found = ChapterRules.violations(in: ["Code.swift": source], of: chapter)
    #expect(!found.contains { $0.isRefused }, "\(found)")
  }

  @Test(
    "Honest code is accepted, whatever its comments, strings and names say",
    arguments: [
      "import Foundation\nimport Synchronization\n// exit() and getenv are not called here\nfunc f() {}",
      "let message = \"call exit(0) and @_cdecl here\"",
      "enum Step { case exit, open }\nlet s = Step.exit\nswitch s { case .exit: break; case .open: break }",
      "actor Log { func write(_ line: String) {}\n func add() { self.write(\"a\") } }",
      "let x = 6 / 2\nvar y = 8\ny /= 2",
      "@MainActor final class Model { nonisolated func go() async {}\n @concurrent func run() async {} }",
      "@discardableResult func f() -> Int { 1 }\n@Sendable func g() {}\n@TaskLocal static var id = 0",
      "let values = [1, 2].map { $0 / 2 }",
      "func average(_ total: Int?, _ n: Int) -> Int { total!/n }\nfunc m(_ d: [String: Int]) -> Int { d[\"a\"]!/2 }",
      "func g(_ xs: [Int]) -> Int { xs.reduce(0, +)/xs.count }\nfunc h(_ x: Int?) -> Int { (x ?? 1)/2 }",
      "enum Event: Sendable { case started, exit(code: Int)\n case open }\nlet e = Event.exit(code: 0)",
      "open class Worker { open func run() {} }",
      "func f(signal: Int) {}\nf(signal: 1)",
      "actor Log { var lines: [String] = []\n func write(_ l: String) { lines.append(l) }\n func add() { self.write(\"a\") } }",
      "func go() async { await withUnsafeContinuation { (c: UnsafeContinuation<Void, Never>) in c.resume() } }",
    ])
  func accepted(source: String) {
    #expect(reasons(source).isEmpty)
  }

  @Test("A chapter whose checks the learner writes may import the testing library, the kit and its component")
  func checksChapter() {
    var checks = chapter
    checks.component = "SignupForm"
    let source = "import Testing\nimport ConcurrencyTestKit\n@testable import SignupForm\nimport Glibc"
    let found = ChapterRules.violations(in: ["Checks.swift": source], of: checks)
    #expect(found.map(\.line) == [4])
    #expect(!found.contains { $0.isRefused }, "Glibc is for review, not refused")
  }

  /// The repository's root, from this file's path.
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  @Test("Every starter and solution of the course keeps the rules")
  func course() throws {
    let curriculum = try Curriculum.load(from: Self.repository.appendingPathComponent("curriculum.json"))
    for chapter in curriculum.chapters {
      for root in ["Chapters", "Solutions"] {
        let folder = Self.repository.appendingPathComponent("\(root)/\(chapter.folder)")
        let sources = try GradingCopy.swiftSources(in: folder)
        #expect(!sources.isEmpty, "\(root)/\(chapter.folder)")
        let found = ChapterRules.violations(in: sources, of: chapter)
        #expect(found.isEmpty, "\(root)/\(chapter.folder): \(found)")
      }
    }
  }
}
