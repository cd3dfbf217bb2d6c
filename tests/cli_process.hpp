#pragma once
// Runs the dalembert CLI as a child process with an argument vector (no shell: the arguments are
// passed exactly as given, quotes and all), in a chosen working directory, with optional limits
// (a file-size limit simulates a full disk), and returns its exit status and output (read from
// pipes, which the limit does not cut).
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "temp_dir.hpp"

namespace dalembert::test {

struct CliRun {
  int status = -1;  // exit code, or -1 if killed
  int signal = 0;
  std::string out, err;
};

struct CliOptions {
  std::filesystem::path cwd;
  long max_file_bytes = -1;  // RLIMIT_FSIZE; writes past it fail with EFBIG (SIGXFSZ ignored)
};

// Reads the child's stdout and stderr pipes to their ends (both at once: neither can fill up and
// block the child). Pipes, not files: a file-size limit on the child does not cut its messages.
inline void read_both(int out_fd, int err_fd, CliRun& r) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* into[2] = {&r.out, &r.err};
  int open = 2;
  char buf[4096];
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) into[i]->append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR) ::close(fds[i].fd), fds[i].fd = -1, --open;
    }
  }
}

inline CliRun run_dalembert(const std::vector<std::string>& args, const CliOptions& opt) {
  std::vector<std::string> argv = {DALEMBERT_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  int out[2], err[2];
  if (::pipe(out) != 0 || ::pipe(err) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(opt.cwd.c_str()) != 0) ::_exit(126);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    if (opt.max_file_bytes >= 0) {
      std::signal(SIGXFSZ, SIG_IGN);  // inherited by exec: a write past the limit fails with EFBIG
      const rlimit lim{static_cast<rlim_t>(opt.max_file_bytes), static_cast<rlim_t>(opt.max_file_bytes)};
      ::setrlimit(RLIMIT_FSIZE, &lim);
    }
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  CliRun r;
  read_both(out[0], err[0], r);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace dalembert::test
