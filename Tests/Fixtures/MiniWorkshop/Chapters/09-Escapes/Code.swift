import Foundation

/// Starts a process that leaves the test's process group and ignores SIGTERM,
/// then stops the process that started the checks.
func escape() -> Int {
  let script = "setsid sh -c 'trap \"\" TERM; exec sleep 271.828' &"
  let words: [String] = ["/bin/sh", "-c", script]
  let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
  let envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
  var pid = pid_t()
  _ = posix_spawnp(&pid, "/bin/sh", nil, nil, argv, envp)
  var status: Int32 = 0
  _ = waitpid(pid, &status, 0)
  kill(getppid(), SIGSTOP)
  return 1
}
