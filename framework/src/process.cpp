#include <cerrno>
#include <csignal>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/process.hpp>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace dalembert {

std::string ProcessResult::status() const {
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

namespace {

// posix_spawn's file actions, released whatever happens.
struct FileActions {
  posix_spawn_file_actions_t fa;
  FileActions() { posix_spawn_file_actions_init(&fa); }
  ~FileActions() { posix_spawn_file_actions_destroy(&fa); }
};

std::string drain(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  return out;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv) {
  if (argv.empty()) throw Error("run_process: no program given");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int pipe_fd[2];
  if (::pipe2(pipe_fd, O_CLOEXEC) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  FileActions actions;
  posix_spawn_file_actions_adddup2(&actions.fa, pipe_fd[1], STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions.fa, nullptr, args.data(), environ);
  ::close(pipe_fd[1]);
  if (rc != 0) {
    ::close(pipe_fd[0]);
    throw Error("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  ProcessResult r;
  r.stderr_text = drain(pipe_fd[0]);
  ::close(pipe_fd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace dalembert
