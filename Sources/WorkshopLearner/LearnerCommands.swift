import WorkshopCore

/// The learner's subcommands: `workshop` runs these, and hands the
/// instructor's and the maintainer's to `workshop-instructor` (see
/// ``InstructorForwarding``), so that a learner's first run compiles none
/// of their code.
///
///     let status = Workshop(subcommands: LearnerCommands.table).run(["check", "04"])
package enum LearnerCommands {
  /// The subcommands, in the order help lists them.
  package static let all: [any Subcommand.Type] = [
    ProgressCommand.self, CheckCommand.self, WatchCommand.self, HintCommand.self, SolutionCommand.self,
    ResetCommand.self, ListCommand.self,
  ]

  /// The learner's runner's table.
  package static let table = SubcommandTable(
    all, handedOff: InstructorForwarding.subcommands, chinese: chinese)

  /// The Chinese of the learner's help texts, by their English: each key is
  /// the configuration's own text, so a text changed in English shows in
  /// English until its Chinese is written again (`LanguageTests` checks that
  /// every one has its Chinese).
  package static let chinese: [String: String] = [
    ProgressCommand.configuration.summary: "给每一章评分，并告诉你下一步做什么。",
    ProgressCommand.configuration.discussion: """
    构建各章，在各自独立的进程里运行每一章的检查（一章崩溃或卡住
    从不会拖住其他章），然后打印一张进度表。
    """,
    CheckCommand.configuration.summary: "运行一章的检查，并解释每一个失败。",
    CheckCommand.configuration.discussion: """
    失败的检查会显示预期的是什么、实际发生了什么，以及它运行时记录
    下来的事件。只要还有检查失败，就以 1 退出。
    不指定章节时，检查\(currentChapterChinese)。
    """,
    CheckCommand.timelineOption.help:
      "同时把每项失败检查记录的事件画成时间线：一个在浏览器里打开的 HTML 页面，以及每项检查一张 SVG，放在 .workshop/\(CheckCommand.timelineFolder)/ 里。",
    WatchCommand.configuration.summary: "每次保存都重新评分，直到你按 q。",
    WatchCommand.configuration.discussion: """
    先给每一章评分，然后每次你在 Chapters/ 里保存文件时再评一次：
    你最后保存的那一章完整显示，其他各章各一行。编译不过的保存会显示
    编译器的错误；评分进行中的保存会在它结束后马上评。按 q 或 Ctrl-C 退出。
    """,
    HintCommand.configuration.summary: "显示一章的下一条提示。",
    HintCommand.configuration.discussion: """
    每次调用多显示一条提示，从轻轻一推到几乎就是答案。在有几个练习的
    章节里，提示针对检查仍然失败的那个练习；有几个都失败时，它会问你
    要哪一个。
    不指定章节时，给出\(currentChapterChinese)的提示。
    """,
    HintCommand.resetOption.help: "让这一章的提示重新从第一条开始。",
    HintCommand.exerciseOption.help: "在有几个练习的章节里，要提示的那个练习（它的名字或文件）。",
    SolutionCommand.configuration.summary: "把你的代码和参考答案对照。",
    SolutionCommand.configuration.discussion: """
    一章完成之后，显示参考答案和你的文件有什么不同，以及它对每一处
    修正的注释。在那之前，它会说还剩几项检查，并建议你先看提示。
    """,
    SolutionCommand.forceOption.help: "即使这一章还没完成，也显示答案。",
    ResetCommand.configuration.summary: "让一章从初始代码重新开始。",
    ResetCommand.configuration.discussion: """
    把这一章的文件恢复成课程发布时的样子，即使你已经提交了改动。
    你的文件会先被复制到 .workshop/backups/<chapter>/<time>/，命令会告诉你在哪里。
    """,
    ResetCommand.allOption.help: "重置每一章。",
    ListCommand.configuration.summary: "列出所有章节。",
    GradingOptions.solutionsOption.help: "评 Solutions/ 而不是 Chapters/。",
    SubcommandConfiguration.Argument.chapter.help: "一个编号（4 或 04）或一个名字（DebouncedSearch）。",
    SubcommandConfiguration.Argument.currentChapter: currentChapterChinese,
  ]

  /// ``SubcommandConfiguration/Argument/currentChapter`` in Chinese.
  static let currentChapterChinese = "你正在做的那一章（你最后编辑过、且还没完成的那一章）"
}
