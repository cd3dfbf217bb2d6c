#pragma once
// An advisory lock on an output folder, held for the life of a run: a second run writing the same
// folder is refused while the first holds it. The lock is flock(2) on a small file DIR.lock, so it
// dies with its process: a run killed with SIGKILL leaves no stale lock behind, only the file,
// which the next run reuses (it recognises the file by its first line and never takes over a
// file it did not write).
#include <boost/config.hpp>
#include <filesystem>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE RunLock {
 public:
  /// Takes the lock on `folder` (file "<folder>.lock"), or throws an InputError naming the folder
  /// and the process that holds it.
  explicit RunLock(const std::filesystem::path& folder);
  ~RunLock();  // removes the lock file and releases the lock
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

}  // namespace dalembert
