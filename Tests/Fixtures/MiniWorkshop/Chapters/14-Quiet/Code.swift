/// Never resumes its continuation: a task awaiting it hangs forever.
func waitForSignal() async {
  await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
}

func answer() -> Int { 42 }
