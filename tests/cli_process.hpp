#pragma once
// Runs the dalembert CLI as a child process with an argument vector (no shell: the arguments are
// passed exactly as given, quotes and all), in a chosen working directory, with optional limits
// (a file-size limit simulates a full disk), and returns its exit status and output (read from
// pipes, which the limit does not cut).
#include <algorithm>
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

extern char** environ;

namespace dalembert::test {

struct CliRun {
  int status = -1;  // exit code, or -1 if killed
  int signal = 0;
  std::string out, err;
};

struct CliOptions {
  std::filesystem::path cwd;
  long max_file_bytes = -1;  // RLIMIT_FSIZE (as `ulimit -f`; SIGXFSZ as the shell leaves it)
  unsigned timeout_s = 0;    // > 0: SIGALRM ends the CLI after that long (a hang fails the test)
  std::vector<std::string> env;  // "NAME=value" added to the environment
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
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> env_strings;  // the inherited environment, opt.env in place of what it names
  for (char** e = environ; *e; ++e)
    if (std::none_of(opt.env.begin(), opt.env.end(), [&](const std::string& o) { return name_of(o) == name_of(*e); }))
      env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), opt.env.begin(), opt.env.end());
  std::vector<char*> cenv;
  for (auto& e : env_strings) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(opt.cwd.c_str()) != 0) ::_exit(126);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    if (opt.max_file_bytes >= 0) {
      const rlimit lim{static_cast<rlim_t>(opt.max_file_bytes), static_cast<rlim_t>(opt.max_file_bytes)};
      ::setrlimit(RLIMIT_FSIZE, &lim);
    }
    if (opt.timeout_s > 0) ::alarm(opt.timeout_s);  // kept across exec
    ::execve(cargv[0], cargv.data(), cenv.data());
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
