#include <boost/dll/runtime_symbol_info.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <dalembert/core/warn_once.hpp>
#include <dalembert/plugin/plugin_file.hpp>
#include <dalembert/plugin/probe.hpp>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;

namespace dalembert {

namespace {

// The helper writes "ready\n" as soon as it runs (before touching the plugin), then "ok\n" or
// "refused <reason>\n". No "ready" means the helper itself could not start: not the plugin's fault.
constexpr const char* kReady = "ready\n";
constexpr int kHelperFd = 3;
constexpr int kTimeoutSeconds = 60;  // a static initialiser that hangs

void write_all(int fd, const std::string& s) {
  for (std::size_t done = 0; done < s.size();) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

std::string signal_name(int sig) {
  if (const char* abbrev = sigabbrev_np(sig)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

struct ProbeRun {
  std::string output;
  int status = 0;
  bool timed_out = false;
};

// The pipe's write end as fd kHelperFd in the child; everything else the plugin prints goes to
// /dev/null (the CLI's stderr is one line on error).
bool spawn_helper(const fs::path& file, int write_fd, pid_t& pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, write_fd, kHelperFd);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const std::string helper = probe_helper_path().string(), arg = file.string();
  char* argv[] = {const_cast<char*>(helper.c_str()), const_cast<char*>(arg.c_str()), nullptr};
  const int rc = ::posix_spawn(&pid, helper.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0;
}

// Reads `fd` to its end, or until the deadline.
bool read_until_eof(int fd, std::string& out) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeoutSeconds);
  char buf[512];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

std::optional<ProbeRun> run_probe(const fs::path& file) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  if (fds[1] == kHelperFd) {  // dup2(3, 3) would keep O_CLOEXEC and the helper would lose its pipe
    const int moved = ::fcntl(fds[1], F_DUPFD_CLOEXEC, kHelperFd + 1);
    ::close(fds[1]);
    fds[1] = moved;
  }
  pid_t pid = 0;
  const bool spawned = fds[1] >= 0 && spawn_helper(file, fds[1], pid);
  if (fds[1] >= 0) ::close(fds[1]);
  if (!spawned) {
    ::close(fds[0]);
    return std::nullopt;
  }
  ProbeRun run;
  run.timed_out = !read_until_eof(fds[0], run.output);
  ::close(fds[0]);
  if (run.timed_out) ::kill(pid, SIGKILL);
  while (::waitpid(pid, &run.status, 0) < 0 && errno == EINTR) {}
  return run;
}

// The verdict ("" = safe to load) from what the helper wrote and how it ended.
std::string verdict(const ProbeRun& run) {
  const std::string body = run.output.substr(std::strlen(kReady));
  if (body.rfind("ok\n", 0) == 0) return "";
  if (body.rfind("refused ", 0) == 0) {
    std::string reason = body.substr(8);
    while (!reason.empty() && reason.back() == '\n') reason.pop_back();
    return reason;
  }
  if (run.timed_out)
    return "did not finish loading within " + std::to_string(kTimeoutSeconds) + " s (in a probe process; not loaded)";
  if (WIFSIGNALED(run.status))
    return "crashed with " + signal_name(WTERMSIG(run.status)) + " while loading (in a probe process; not loaded)";
  const int code = WIFEXITED(run.status) ? WEXITSTATUS(run.status) : -1;
  return "ended the probe process with exit status " + std::to_string(code) + " while loading (not loaded)";
}

std::string probe_uncached(const fs::path& file) {
  const auto run = run_probe(file);
  if (!run || run->output.rfind(kReady, 0) != 0) {
    warn_once("probe helper", "the plugin probe helper " + probe_helper_path().string() +
                                  " could not be run: plugins are loaded without a crash check");
    return "";
  }
  return verdict(*run);
}

}  // namespace

fs::path probe_helper_path() {
  return fs::path(boost::dll::this_line_location().parent_path()) / "dalembert" / "dalembert-probe-plugin";
}

std::string probe_plugin_file(const fs::path& file) {
  // One probe at a time: each runs once per file and process, and this keeps the cache simple.
  static std::mutex m;
  static std::map<std::string, std::string> verdicts;
  std::lock_guard<std::mutex> lock(m);
  const auto it = verdicts.find(file.string());
  if (it != verdicts.end()) return it->second;
  return verdicts[file.string()] = probe_uncached(file);
}

int probe_plugin_main(const fs::path& file, int out_fd) {
  write_all(out_fd, kReady);
  const LoadedPlugin loaded = load_plugin_file(file);
  write_all(out_fd, loaded.descriptor ? std::string("ok\n") : "refused " + loaded.refusal + "\n");
  return 0;
}

}  // namespace dalembert
