import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `workshop` command: parses arguments, runs a subcommand, returns the exit status.
package struct Workshop {
  /// Where the command writes.
  package struct Console: Sendable {
    /// Called from any thread (the progress table prints a chapter's row
    /// from the thread that graded it), one call at a time.
    package var out: @Sendable (String) -> Void
    package var err: @Sendable (String) -> Void
    /// Transient status on a terminal ("Building 12/40"); nil when not a terminal.
    package var status: (@Sendable (String) -> Void)?

    init(
      out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
      status: (@Sendable (String) -> Void)? = nil
    ) {
      self.out = out
      self.err = err
      self.status = status
    }

    /// Standard output and error, with a status line on standard error when it is a terminal.
    static var standard: Console {
      let terminal = isatty(STDERR_FILENO) == 1
      // The status line shown on the terminal, "" when none: a line printed
      // from any thread first clears it, under the same lock, so a row of
      // the table never shares a line with "Grading 3/14…".
      let shown = Mutex("")
      let status: @Sendable (String) -> Void
      if terminal {
        status = { text in
          shown.withLock { last in
            // Redraw only when the line changes: builds report progress often.
            guard last != text, !Interrupts.isStopping else { return }
            last = text
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)…".utf8))
          }
        }
      } else {
        // A log (CI, a pipe): plain lines, so a long first build is never
        // silent, but not one per build step.
        let throttle = Mutex(StatusThrottle())
        status = { text in
          guard !Interrupts.isStopping, throttle.withLock({ $0.shouldShow(text, at: .now) }) else { return }
          FileHandle.standardError.write(Data("\(text)…\n".utf8))
        }
      }
      let line = { @Sendable (write: () -> Void) in
        shown.withLock { last in
          if !last.isEmpty {
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            last = ""
          }
          write()
        }
      }
      // Once the runner is stopping for Ctrl-C, results of killed checks are
      // not results: nothing more is printed.
      // Each line is flushed: in a CI log or a pipe, a line per submission
      // or per check must show as it happens, not at exit.
      return Console(
        out: { text in
          guard !Interrupts.isStopping else { return }
          line {
            print(text)
            fflush(nil)
          }
        },
        err: { text in
          guard !Interrupts.isStopping else { return }
          line { FileHandle.standardError.write(Data((text + "\n").utf8)) }
        },
        status: status)
    }

    package func clearStatus() {
      guard status != nil, isatty(STDERR_FILENO) == 1 else { return }
      FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
  }

  package var console: Console
  package var style: Style
  package var directory: URL
  /// For tests: ends `watch` when it returns true (learners press q).
  package var stopWatching: (@Sendable () -> Bool)?
  /// The subcommands this runner runs, and those it hands to
  /// `workshop-instructor` (see ``InstructorForwarding``): the learner's
  /// `workshop` runs the learner's and hands off the instructor's and the
  /// maintainer's, so that a learner's first run compiles none of their
  /// code; `workshop-instructor` runs them all.
  package var subcommands: SubcommandTable
  /// The language the runner speaks: `--lang`, else the one remembered for
  /// the checkout, else the environment's (see ``Language``). Set by
  /// ``run(_:)`` once it has found the workshop.
  package var language: Language
  /// The environment the language is read from when none is chosen.
  package var environment: [String: String]

  package init(
    console: Console = .standard, style: Style = .forStandardOutput(), directory: URL? = nil,
    subcommands: SubcommandTable, environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.console = console
    self.style = style
    self.directory = directory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    self.subcommands = subcommands
    self.environment = environment
    self.language = Language.fromEnvironment(environment)
  }

  /// Exit statuses, as swift-argument-parser uses them.
  package enum ExitCode {
    package static let success: Int32 = 0
    package static let failure: Int32 = 1
    package static let usage: Int32 = 64
  }

  /// Runs the command line (without the program name) and returns the exit status.
  package func run(_ arguments: [String]) -> Int32 {
    let invocation: SubcommandTable.Invocation
    let choice: Language.Choice?
    do {
      let (rest, chosen) = try Language.takeOption(from: arguments)
      choice = chosen
      invocation = try subcommands.parse(rest)
    } catch let error as UsageError {
      let words = helpLanguage(arguments)
      console.err("error: \(error.words(words))")
      console.err(subcommands.usage(for: error.subcommand, words))
      console.err(words("See 'workshop --help'.", "见 'workshop --help'。"))
      return ExitCode.usage
    } catch {
      console.err("error: \(error)")
      return ExitCode.usage
    }

    switch invocation {
    case .help(let topic):
      let words = helpLanguage(arguments)
      guard let text = subcommands.help(for: topic, words) else {
        console.err(
          words(
            "error: no help for '\(topic ?? "")': there is no such subcommand.",
            "error: 没有 '\(topic ?? "")' 的帮助：没有这个子命令。"))
        console.err(words("See 'workshop --help'.", "见 'workshop --help'。"))
        return ExitCode.usage
      }
      console.out(text)
      return ExitCode.success
    case .version:
      console.out("workshop \(SubcommandTable.version)")
      return ExitCode.success
    case .run, .handOff:
      break
    }

    let workspace: Workspace
    do {
      workspace = try Workspace.locate(from: directory)
    } catch {
      // Xcode runs the `workshop` scheme from its build folder: fall back to
      // the checkout this runner was built from.
      guard let built = try? Workspace.locate(from: Workspace.builtFrom) else {
        console.err("error: \(error)")
        return ExitCode.failure
      }
      workspace = built
      console.err(
        style.dim(
          "note: "
            + language("using the workshop this runner was built from, ", "使用构建这个运行器的工作坊，")
            + built.root.path))
    }
    // Paths in what is printed are relative to where the command ran.
    var here = self
    let remembered = Language.Remembered(directory: workspace.stateDirectory)
    switch choice {
    case .language(let language)?:
      do { try remembered.save(language) } catch {
        console.err(
          "warning: cannot remember the language in \(workspace.stateDirectory.path): \(error.localizedDescription)"
        )
      }
    case .auto?: try? remembered.save(nil)
    case nil: break
    }
    here.language = Language.chosen(choice, remembered: remembered.load(), environment: environment)
    let paths = PathRewriter(root: workspace.root, directory: directory)
    here.console.out = { [console] in console.out(paths.rewrite($0)) }
    here.console.err = { [console] in console.err(paths.rewrite($0)) }
    guard case .run(let command) = invocation else {
      // Handed to the runner that holds it (see ``subcommands``).
      return InstructorForwarding.run(arguments, root: workspace.root, console: here.console)
    }
    return command.run(here, in: workspace)
  }

  // MARK: - Helpers

  /// The language of help and usage errors, which come before the workshop
  /// is needed: `--lang` if the command line gives a valid one, else the one
  /// remembered for the checkout this runs in, else the environment's.
  private func helpLanguage(_ arguments: [String]) -> Language {
    let workspace = try? Workspace.locate(from: directory)
    return Language.chosen(
      (try? Language.takeOption(from: arguments))?.choice,
      remembered: workspace.flatMap { Language.Remembered(directory: $0.stateDirectory).load() },
      environment: environment)
  }

  /// The chapter `query` names; without a query, the chapter the learner is on.
  package func resolve(_ query: String?, in workspace: Workspace) -> Curriculum.Chapter? {
    guard let query else {
      // Run from inside a chapter's folder: that chapter.
      let here = directory.standardizedFileURL.resolvingSymlinksInPath().path + "/"
      if let inside = workspace.curriculum.chapters.first(where: { chapter in
        [Variant.chapters, .solutions].contains {
          here.hasPrefix(
            workspace.url(workspace.codeFolder(chapter, $0)).standardizedFileURL.resolvingSymlinksInPath()
              .path + "/")
        }
      }) {
        return inside
      }
      let chapter = Whereabouts(workspace: workspace).current()
      if let chapter {
        let title = CourseText(workspace: workspace, language: language).title(chapter)
        console.err(
          style.dim(
            language(
              "Chapter \(chapter.paddedNumber), \(title): the chapter you are on.",
              "第 \(chapter.paddedNumber) 章，\(title)：你正在做的一章。")))
      }
      return chapter
    }
    if let chapter = workspace.curriculum.chapter(matching: query) { return chapter }
    var message = language("error: no chapter '\(query)'.", "error: 没有章节 '\(query)'。")
    let chapters = workspace.curriculum.chapters
    if let number = Int(query), let first = chapters.first, let last = chapters.last {
      message = language(
        "error: no chapter \(number): this workshop has chapters \(first.paddedNumber) to \(last.paddedNumber).",
        "error: 没有第 \(number) 章：本课程有第 \(first.paddedNumber) 到 \(last.paddedNumber) 章。")
    } else if let guess = workspace.curriculum.suggestion(for: query) {
      message += language(
        " Did you mean \(guess.paddedNumber) (\(guess.title))?",
        "你是想找 \(guess.paddedNumber)（\(guess.title)）吗？")
    }
    console.err(message)
    console.err(
      language("Run 'swift run workshop list' to see every chapter.", "运行 'swift run workshop list' 查看所有章节。"))
    return nil
  }

}

/// Which status lines a log gets when standard error is not a terminal: the
/// first of each kind ("Building", "Grading", ...; the counts aside), then at
/// most one every `interval`.
struct StatusThrottle {
  var interval: Duration = .seconds(10)
  private var lastKind = ""
  private var lastShown: ContinuousClock.Instant?

  mutating func shouldShow(_ text: String, at now: ContinuousClock.Instant) -> Bool {
    let kind = String(text.filter { !$0.isNumber })
    if kind == lastKind, let lastShown, now - lastShown < interval { return false }
    lastKind = kind
    lastShown = now
    return true
  }
}
