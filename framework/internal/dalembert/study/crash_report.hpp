#pragma once
// When a plugin crashes the process (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) while a task runs,
// the command line still says which plugin, task and parameters were running: one line
// "error: ..." on stderr and in error.txt of the run's staging folder, then the signal takes its
// course (the process ends as it would have; an interrupted run can be resumed).
//
// A signal handler may only do async-signal-safe work, so everything it writes is formatted
// before the task runs: each thread's current context into a buffer of its own (CrashContext),
// the staging folder's error.txt path into a static one (CrashFolder). The handler only copies
// these bytes with write(2), then restores the previous disposition of the signal and raises it.
#include <boost/config.hpp>
#include <filesystem>
#include <string>

namespace dalembert {

/// Installs the handlers (once per process; the command line does at start). Without them a
/// context costs one formatted string per task and is never printed.
BOOST_SYMBOL_VISIBLE void install_crash_report();

/// While alive, a crash on this thread is reported as
/// "error: <what> crashed the process with <signal>". Nested contexts restore the outer one.
class BOOST_SYMBOL_VISIBLE CrashContext {
 public:
  explicit CrashContext(const std::string& what);
  ~CrashContext();
  CrashContext(const CrashContext&) = delete;
  CrashContext& operator=(const CrashContext&) = delete;

 private:
  std::string outer_;  // the enclosing context's text ("" if none)
};

/// While alive, a crash also writes its line to `staging`/error.txt (a run's folder in progress).
class BOOST_SYMBOL_VISIBLE CrashFolder {
 public:
  explicit CrashFolder(const std::filesystem::path& staging);
  ~CrashFolder();
  CrashFolder(const CrashFolder&) = delete;
  CrashFolder& operator=(const CrashFolder&) = delete;
};

}  // namespace dalembert
