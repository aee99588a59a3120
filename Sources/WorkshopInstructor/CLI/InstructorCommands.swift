import WorkshopCore

/// The instructor's subcommand: `grade` grades a class. `workshop-instructor`
/// runs it beside the learner's and the maintainer's:
///
/// ```swift
/// let table = SubcommandTable(LearnerCommands.all + InstructorCommands.all + MaintainerCommands.all)
/// let status = Workshop(subcommands: table).run(["grade", "submissions/*"])
/// ```
package enum InstructorCommands {
  /// The subcommands, in the order help lists them.
  package static let all: [any Subcommand.Type] = [GradeCommand.self]

  /// The Chinese of `grade`'s help texts, by their English (see
  /// `LearnerCommands.chinese`).
  package static let chinese: [String: String] = [
    GradeCommand.configuration.summary: "用这个检出副本的检查给一个班的提交评分。",
    GradeCommand.configuration.discussion: """
    只取每份提交 Chapters/NN-Name/ 文件夹里的 Swift 文件，在沙箱里用这个检出副本的
    检查给它们评分：提交自己的 Tests/、Package.swift 或 curriculum.json 什么也改变不了。
    为每份提交写出 results.json（Gradescope）和 junit.xml，为全班写出 class.csv 和
    summary.md。任何练习都用不到的代码（读取环境变量、启动进程、写文件……）会被标为
    “需要复核”。每份提交都评了分时以 0 退出，不论分数；有一份没能评分时以 1 退出
    （它的报告写明原因）。在 workshop-instructor 里运行，SwiftPM 会在第一次使用时构建它。
    """,
    GradeCommand.configuration.argument!.help:
      "一份学员的工作坊副本、它的 Chapters/ 文件夹，或者二者之一的 .zip 或 .tar.gz。想给几份都行。",
    GradeCommand.reportDirectoryOption.help: "每份提交的 results.json 和 junit.xml，以及 class.csv 和 summary.md 写到哪里。",
    GradeCommand.jobsOption.help: "同时评分几份提交，1 到 64。",
    GradeCommand.jobsOption.defaultValue!: "核心数",
    GradeCommand.unsandboxedOption.help: "不用沙箱评分：学员的代码会以你的权限运行，可以改动你的任何文件。",
  ]
}
