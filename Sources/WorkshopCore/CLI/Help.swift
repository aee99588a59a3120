/// The help texts, in swift-argument-parser's layout.
public enum Help {
  public static let version = "0.1.0"

  public static let overview = """
    OVERVIEW: Grade your work on the Swift Concurrency Workshop.

    Fix the broken code in Chapters/, then run this to see which checks pass,
    what failed and why, and what to do next.

    USAGE: workshop [<subcommand>] [<options>]

    OPTIONS:
      --solutions             Grade Solutions/ instead of Chapters/.
      --timeout <seconds>     The time limit for one chapter's checks. (default: 60)
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      progress (default)      Grade every chapter and show what to do next.
      check <chapter>         Run one chapter's checks and explain every failure.
      hint <chapter>          Show the next hint for a chapter.
      verify                  Check the course itself (solutions, starters, tooling).
      list                    List the chapters.

      See 'workshop help <subcommand>' for detailed help.
    """

  /// The help for one subcommand, or nil if there is no such subcommand.
  public static func text(for subcommand: String?) -> String? {
    guard let subcommand else { return overview }
    switch subcommand {
    case "progress":
      return """
        OVERVIEW: Grade every chapter and show what to do next.

        Builds the chapters, runs each chapter's checks in a process of its own
        (a crash or a hang in one chapter never stops the others), and prints a
        progress table.

        USAGE: workshop [progress] [--solutions] [--timeout <seconds>]

        OPTIONS:
          --solutions             Grade Solutions/ instead of Chapters/.
          --timeout <seconds>     The time limit for one chapter's checks. (default: 60)
          -h, --help              Show help information.
        """
    case "check":
      return """
        OVERVIEW: Run one chapter's checks and explain every failure.

        A failing check shows what was expected, what happened, and the events
        recorded while it ran. Exits 1 while any check fails.

        USAGE: workshop check <chapter> [--solutions] [--timeout <seconds>]

        ARGUMENTS:
          <chapter>               A number (4 or 04) or a name (DebouncedSearch).

        OPTIONS:
          --solutions             Run the checks against Solutions/ instead.
          --timeout <seconds>     The time limit for the chapter's checks. (default: 60)
          -h, --help              Show help information.
        """
    case "hint":
      return """
        OVERVIEW: Show the next hint for a chapter.

        Each call shows one more hint, from a nudge to nearly the answer.

        USAGE: workshop hint <chapter> [--reset]

        ARGUMENTS:
          <chapter>               A number (4 or 04) or a name (DebouncedSearch).

        OPTIONS:
          --reset                 Start the chapter's hints from the first one again.
          -h, --help              Show help information.
        """
    case "verify":
      return """
        OVERVIEW: Check the course itself. The repository's test command.

        Verifies the course layout, that every solution passes every check,
        that every starter fails exactly the checks curriculum.json declares,
        and that the test kit's and the runner's own tests pass. Ends with
        'N passed, M failed' and exits 1 if anything failed.

        USAGE: workshop verify [--repeat <count>] [--timeout <seconds>]

        OPTIONS:
          --repeat <count>        Run every chapter's checks this many times and
                                  require identical results each time. (default: 1)
          --timeout <seconds>     The time limit for one chapter's checks. (default: 60)
          -h, --help              Show help information.
        """
    case "list":
      return """
        OVERVIEW: List the chapters.

        USAGE: workshop list
        """
    case "help":
      return """
        OVERVIEW: Show help information.

        USAGE: workshop help [<subcommand>]
        """
    default:
      return nil
    }
  }

  /// The one-line usage shown under a usage error.
  public static func usage(for subcommand: String?) -> String {
    switch subcommand {
    case "check": "Usage: workshop check <chapter> [--solutions] [--timeout <seconds>]"
    case "hint": "Usage: workshop hint <chapter> [--reset]"
    case "verify": "Usage: workshop verify [--repeat <count>] [--timeout <seconds>]"
    case "list": "Usage: workshop list"
    default: "Usage: workshop [<subcommand>] [<options>]"
    }
  }
}
