#pragma once
// Runs the dalembert CLI as a child process with an argument vector (no shell: the arguments are
// passed exactly as given, quotes and all), in a chosen working directory, with optional limits
// (a file-size limit simulates a full disk), and returns its exit status and output.
#include <algorithm>
#include <csignal>
#include <fcntl.h>
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

inline CliRun run_dalembert(const std::vector<std::string>& args, const CliOptions& opt) {
  const std::filesystem::path out = opt.cwd / ".cli_stdout", err = opt.cwd / ".cli_stderr";
  std::vector<std::string> argv = {DALEMBERT_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
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
    const int fo = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fe = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0) ::_exit(126);
    ::dup2(fo, STDOUT_FILENO);
    ::dup2(fe, STDERR_FILENO);
    if (opt.max_file_bytes >= 0) {
      const rlimit lim{static_cast<rlim_t>(opt.max_file_bytes), static_cast<rlim_t>(opt.max_file_bytes)};
      ::setrlimit(RLIMIT_FSIZE, &lim);
    }
    if (opt.timeout_s > 0) ::alarm(opt.timeout_s);  // kept across exec
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  CliRun r;
  if (WIFEXITED(status)) r.status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_text(out);
  r.err = read_text(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

}  // namespace dalembert::test
