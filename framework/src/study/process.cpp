#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/process.hpp>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace dalembert {

std::string ProcessResult::status() const {
  if (timed_out) return "timed out (killed)";
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

namespace {

using Clock = std::chrono::steady_clock;

// posix_spawn's file actions and attributes, released whatever happens.
struct FileActions {
  posix_spawn_file_actions_t fa;
  FileActions() { posix_spawn_file_actions_init(&fa); }
  ~FileActions() { posix_spawn_file_actions_destroy(&fa); }
};
struct SpawnAttributes {
  posix_spawnattr_t attr;
  SpawnAttributes() { posix_spawnattr_init(&attr); }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attr); }
};

// The inherited environment with `overrides` ("NAME=value") in place of the variables they name.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& o : overrides) replaced = replaced || name_of(o) == name_of(entry);
    if (!replaced) out.push_back(entry);
  }
  out.insert(out.end(), overrides.begin(), overrides.end());
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Milliseconds left before the deadline (at least 1 while any is left), -1 without one.
int remaining_ms(const std::optional<Clock::time_point>& deadline) {
  if (!deadline) return -1;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left + 1, 1 << 30));
}

// Reads the pipe until end of file or the deadline; false if the deadline came first.
bool drain(int fd, std::string& out, const std::optional<Clock::time_point>& deadline) {
  char buf[4096];
  for (;;) {
    const int wait = remaining_ms(deadline);
    if (wait == 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait);
    if (ready < 0 && errno != EINTR) return true;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) return true;
  }
}

// Waits for the child until the deadline; false if the deadline came first.
bool wait_for(pid_t pid, int& status, const std::optional<Clock::time_point>& deadline) {
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, deadline ? WNOHANG : 0);
    if (w == pid) return true;
    if (w < 0 && errno != EINTR) return true;  // not our child any more: nothing to wait for
    if (w == 0) {
      if (remaining_ms(deadline) == 0) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) throw Error("run_process: no program given");
  std::vector<std::string> arg_strings = argv, env_strings = environment_with(options.environment);
  const std::vector<char*> args = pointers(arg_strings), env = pointers(env_strings);

  int pipe_fd[2];
  if (::pipe2(pipe_fd, O_CLOEXEC) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  FileActions actions;
  posix_spawn_file_actions_adddup2(&actions.fa, pipe_fd[1], STDERR_FILENO);
  SpawnAttributes attributes;  // a process group of its own (its id is the child's pid)
  posix_spawnattr_setflags(&attributes.attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes.attr, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions.fa, &attributes.attr, args.data(), env.data());
  ::close(pipe_fd[1]);
  if (rc != 0) {
    ::close(pipe_fd[0]);
    throw Error("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  std::optional<Clock::time_point> deadline;
  if (options.timeout_s > 0)
    deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s));
  ProcessResult r;
  int status = 0;
  const bool in_time = drain(pipe_fd[0], r.stderr_text, deadline) && wait_for(pid, status, deadline);
  ::close(pipe_fd[0]);
  if (!in_time) {
    ::kill(-pid, SIGKILL);  // the program and everything it started
    wait_for(pid, status, std::nullopt);
    r.timed_out = true;
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace dalembert
