#pragma once
// Starts a program with an argument vector — never through a shell, so no text of a study, a
// label or a path is ever interpreted as a command — and waits for it, capturing its stderr.
#include <boost/config.hpp>
#include <string>
#include <vector>

namespace dalembert {

struct ProcessResult {
  int exit_code = -1;   // the program's exit status, or -1 if it did not exit normally
  int signal = 0;       // the signal that ended it, or 0
  std::string stderr_text;
  bool ok() const { return exit_code == 0 && signal == 0; }
  /// "exit 2" or "killed by signal 9 (Killed)".
  std::string status() const;
};

/// Runs argv[0] (a path, or a name looked up on PATH) with arguments argv[1..]; stdout is
/// inherited, stderr captured. Throws Error if the program cannot be started.
BOOST_SYMBOL_VISIBLE ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace dalembert
