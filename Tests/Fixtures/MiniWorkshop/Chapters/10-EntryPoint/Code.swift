/// A learner's experiment: an app entry point in a library chapter.
@main
struct Playground {
  static func main() { print("hello") }
}

func value() -> Int { 2 }
