#include "sandbox.hpp"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dalembert::fuzz {

namespace {

// In the child: own process group (so the whole group can be killed), stdout to /dev/null, stderr
// to a file, a memory cap so a runaway allocation fails instead of taking the machine down.
[[noreturn]] void exec_child(const std::vector<std::string>& argv, const fs::path& cwd, const fs::path& err_file) {
  setpgid(0, 0);
  const int null = open("/dev/null", O_WRONLY);
  const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (null < 0 || err < 0 || chdir(cwd.c_str()) != 0) _exit(127);
  dup2(null, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // Not under a sanitizer: its shadow memory needs terabytes of address space, and its own
  // allocator already refuses a runaway allocation.
  const rlimit mem{rlim_t{4} << 30, rlim_t{4} << 30};
  setrlimit(RLIMIT_AS, &mem);
#endif
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& cwd, const fs::path& scratch,
                          double timeout_s) {
  const fs::path err_file = scratch / "stderr.txt";
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) exec_child(argv, cwd, err_file);
  ProcessResult r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);  // the child's process group: it and anything it started
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.hung = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!r.hung && WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (!r.hung && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.err = read_all(err_file);
  return r;
}

Snapshot snapshot(const fs::path& root) {
  Snapshot s;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto& p = it->path();
    const auto rel = fs::relative(p, root, ec).string();
    std::string stamp = it->is_directory(ec) ? "dir" : std::to_string(it->file_size(ec));
    stamp += " " + std::to_string(it->last_write_time(ec).time_since_epoch().count());
    s[rel] = stamp;
  }
  return s;
}

}  // namespace dalembert::fuzz
