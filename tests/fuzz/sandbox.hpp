#pragma once
// Running the CLI for the fuzz driver: fork/exec with an argument vector (no shell), in a given
// working folder, killed after a wall-clock limit; and a snapshot of a folder tree to tell which
// files a run created, changed or deleted.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace dalembert::fuzz {

struct ProcessResult {
  bool hung = false;   // killed at the time limit
  int signal = 0;      // the signal that ended it, if any
  int exit_code = -1;  // if it exited
  std::string err;     // its stderr
};

/// Runs argv[0] with argv in `cwd`; stdout is discarded, stderr captured (through `scratch`).
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::filesystem::path& scratch, double timeout_s);

/// path (relative to the root) -> "size mtime" of every entry under `root`.
using Snapshot = std::map<std::string, std::string>;
Snapshot snapshot(const std::filesystem::path& root);

}  // namespace dalembert::fuzz
