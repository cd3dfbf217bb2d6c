#pragma once
// Starts a program with an argument vector — never through a shell, so no text of a study, a
// label or a path is ever interpreted as a command — and waits for it, capturing its stderr.
#include <boost/config.hpp>
#include <string>
#include <vector>

namespace dalembert {

struct ProcessOptions {
  double timeout_s = 0;  // > 0: past it the program's process group is killed (SIGKILL); 0: no limit
  std::vector<std::string> environment;  // "NAME=value": set for the program, over the inherited ones
};

struct ProcessResult {
  int exit_code = -1;   // the program's exit status, or -1 if it did not exit normally
  int signal = 0;       // the signal that ended it, or 0
  bool timed_out = false;  // killed at options.timeout_s
  std::string stderr_text;
  bool ok() const { return exit_code == 0 && signal == 0 && !timed_out; }
  /// "exit 2", "killed by signal 9 (Killed)" or "timed out (killed)".
  std::string status() const;
};

/// Runs argv[0] (a path, or a name looked up on PATH) with arguments argv[1..] in a process group
/// of its own (so that a timeout ends whatever it started); stdout is inherited, stderr captured.
/// Throws Error if the program cannot be started.
BOOST_SYMBOL_VISIBLE ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace dalembert
