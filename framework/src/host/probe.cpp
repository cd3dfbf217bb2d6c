#include <boost/dll/runtime_symbol_info.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/warn_once.hpp>
#include <dalembert/host/plugin_file.hpp>
#include <dalembert/host/probe.hpp>
#include <dalembert/host/registry.hpp>
#include <dalembert/host/user_cache.hpp>
#include <dalembert/core/json_input.hpp>
#include <fcntl.h>
#include <algorithm>
#include <map>
#include <set>
#include <mutex>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
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

// In a probe process: plugins are loaded without probing them again (probe_construction_main).
bool g_in_probe_process = false;

// `fd` moved to a descriptor above the ones the helper gets (0-3), close-on-exec, so that the
// dup2 actions of a spawn cannot overwrite one another.
int high_fd(int fd) {
  if (fd < 0 || fd > kHelperFd) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, kHelperFd + 1);
  ::close(fd);
  return moved;
}

// The helper with `args`; the pipe's write end as fd kHelperFd in the child, `stdin_fd` (or
// /dev/null) as its stdin; everything else the plugin prints goes to /dev/null (the CLI's stderr is
// one line on error).
bool spawn_helper(const std::vector<std::string>& args, int write_fd, int stdin_fd, pid_t& pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, write_fd, kHelperFd);
  if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&fa, stdin_fd, 0);
  else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const std::string helper = probe_helper_path().string();
  std::vector<char*> argv = {const_cast<char*>(helper.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int rc = ::posix_spawn(&pid, helper.c_str(), &fa, nullptr, argv.data(), environ);
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

// Runs the helper with `args`, sends it `input` (if any) on its stdin, and collects what it writes.
std::optional<ProbeRun> run_probe(const std::vector<std::string>& args, const std::string& input = "") {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  fds[1] = high_fd(fds[1]);  // dup2(3, 3) would keep O_CLOEXEC and the helper would lose its pipe
  // The request goes through a socket, not a pipe: a helper that dies before reading it must not
  // kill this process with SIGPIPE (send with MSG_NOSIGNAL).
  int request[2] = {-1, -1};
  if (!input.empty() && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, request) != 0) request[1] = -1;
  if (!input.empty() && request[1] < 0) {
    ::close(fds[0]), ::close(fds[1]);
    return std::nullopt;
  }
  request[1] = high_fd(request[1]);
  pid_t pid = 0;
  const bool spawned = fds[1] >= 0 && spawn_helper(args, fds[1], request[1], pid);
  if (fds[1] >= 0) ::close(fds[1]);
  if (request[1] >= 0) ::close(request[1]);
  if (!spawned) {
    ::close(fds[0]);
    if (request[0] >= 0) ::close(request[0]);
    return std::nullopt;
  }
  if (request[0] >= 0) {
    for (std::size_t done = 0; done < input.size();) {
      const ssize_t n = ::send(request[0], input.data() + done, input.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the helper is gone: how it ended says why
      done += static_cast<std::size_t>(n);
    }
    ::close(request[0]);
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

// The verdict, or nullopt if the helper could not be run (then nothing is checked).
std::optional<std::string> probe_uncached(const fs::path& file) {
  const auto run = run_probe({file.string()});
  if (!run || run->output.rfind(kReady, 0) != 0) {
    warn_once("probe helper", "the plugin probe helper " + probe_helper_path().string() +
                                  " could not be run: plugins are loaded without a crash check");
    return std::nullopt;
  }
  return verdict(*run);
}

// The key of "this file loaded in a probe process with this libdalembert" in the user's cache
// (user_cache.hpp), or "" if either cannot be hashed. Both hashes are the per-process ones the
// registry records (plugin_file.hpp), so a file is hashed once however it is opened.
std::string probed_key(const fs::path& file) {
  try {
    return plugin_file_sha256(file) + "-" + framework_sha256();
  } catch (const Error&) {
    return "";
  }
}

// A verdict from the user's cache ("" for a file that loaded before) or from a probe process.
std::string probe_or_remember(const fs::path& file) {
  const std::string key = probed_key(file);
  if (!key.empty() && user_cache_has("probed", key)) return "";
  const auto why = probe_uncached(file);
  if (!why) return "";
  if (why->empty() && !key.empty()) user_cache_add("probed", key);
  return *why;
}

// ---- constructing plugins in the helper (probe_constructions) ----------------------------------

constexpr const char* kConstructing = "constructing ";
constexpr const char* kArgConstruct = "--construct";

std::string construction_key(const PluginDescriptor& d, const PluginConstruction& u) {
  return d.file + '\n' + to_string(u.kind) + '\n' + u.name + '\n' + json_excerpt(u.params, std::string::npos);
}

// What the helper reads: the search paths, in order, and the plugins to construct.
std::string construction_request(const Registry& reg, const std::vector<const PluginConstruction*>& todo) {
  nlohmann::json j = {{"paths", nlohmann::json::array()}, {"uses", nlohmann::json::array()}};
  for (const auto& p : reg.search_paths()) j["paths"].push_back(p.string());
  for (const auto* u : todo)
    j["uses"].push_back({{"kind", static_cast<int>(u->kind)}, {"name", u->name}, {"params", u->params}});
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The index of the last plugin the helper started to construct (-1: none).
long last_started(const std::string& body) {
  long last = -1;
  for (std::size_t p = body.find(kConstructing); p != std::string::npos; p = body.find(kConstructing, p + 1))
    if (p == 0 || body[p - 1] == '\n') last = std::strtol(body.c_str() + p + std::strlen(kConstructing), nullptr, 10);
  return last;
}

void construct(const Registry& reg, PluginKind kind, const std::string& name, const nlohmann::json& params) {
  const std::string where = "probe";
  switch (kind) {
    case PluginKind::System: (void)reg.make_system(name, params, where); break;
    case PluginKind::Integrator: (void)reg.make_integrator(name, params, where); break;
    case PluginKind::Impact: (void)reg.make_impact(name, params, where); break;
    case PluginKind::Observer: (void)reg.make_observer(name, params, where); break;
    case PluginKind::Sampler: (void)reg.make_sampler(name, params, where); break;
  }
}

}  // namespace

void probe_constructions(const Registry& reg, const std::vector<PluginConstruction>& uses) {
  static std::mutex m;
  static std::set<std::string> constructed;  // constructed in a probe process without a crash
  std::lock_guard<std::mutex> lock(m);
  std::vector<const PluginConstruction*> todo;
  std::vector<const PluginDescriptor*> found;
  std::vector<std::string> keys;
  for (const auto& u : uses) {
    const PluginDescriptor& d = reg.find(u.kind, u.name, u.where);
    (void)Parameters::resolve(d.params, u.params, u.name, u.where + "/params");  // refused here, as usual
    const std::string key = construction_key(d, u);
    if (constructed.contains(key) || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    todo.push_back(&u), found.push_back(&d), keys.push_back(key);
  }
  if (todo.empty()) return;
  const auto run = run_probe({kArgConstruct}, construction_request(reg, todo));
  if (!run || run->output.rfind(kReady, 0) != 0) {
    warn_once("probe helper", "the plugin probe helper " + probe_helper_path().string() +
                                  " could not be run: plugins are constructed without a crash check");
    return;
  }
  const std::string body = run->output.substr(std::strlen(kReady));
  const bool finished = body.size() >= 3 && body.compare(body.size() - 3, 3, "ok\n") == 0;
  const long failed = finished ? static_cast<long>(todo.size()) : last_started(body);
  for (long k = 0; k < failed; ++k) constructed.insert(keys[static_cast<std::size_t>(k)]);
  if (failed < 0 || static_cast<std::size_t>(failed) >= todo.size()) return;  // all constructed, or no verdict
  const PluginConstruction& u = *todo[static_cast<std::size_t>(failed)];
  const std::string who = std::string(to_string(u.kind)) + " plugin '" + u.name + "' (" + found[static_cast<std::size_t>(failed)]->file + ")";
  const std::string with = " while being constructed with parameters " + json_excerpt(u.params, 300) +
                           " (in a probe process, before the run)";
  if (run->timed_out) {
    warn_once("construction time " + keys[static_cast<std::size_t>(failed)],
              u.where + ": " + who + " did not finish" + with + " within " + std::to_string(kTimeoutSeconds) + " s");
    return;
  }
  if (WIFSIGNALED(run->status))
    throw PluginError(u.where + ": " + who + " crashed with " + signal_name(WTERMSIG(run->status)) + with);
  const int code = WIFEXITED(run->status) ? WEXITSTATUS(run->status) : -1;
  throw PluginError(u.where + ": " + who + " ended the process with exit status " + std::to_string(code) + with);
}

int probe_construction_main(int in_fd, int out_fd) {
  g_in_probe_process = true;
  write_all(out_fd, kReady);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  const auto request = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object() || !request.contains("paths") || !request.contains("uses")) return 2;
  Registry reg(false);
  const auto& paths = request["paths"];
  for (auto it = paths.rbegin(); it != paths.rend(); ++it) reg.add_search_path(it->get<std::string>());
  for (std::size_t i = 0; i < request["uses"].size(); ++i) {
    const auto& u = request["uses"][i];
    write_all(out_fd, kConstructing + std::to_string(i) + "\n");
    try {
      construct(reg, static_cast<PluginKind>(u["kind"].get<int>()), u["name"].get<std::string>(), u["params"]);
    } catch (...) {  // the study reports it, with its context, when it constructs the plugin itself
    }
  }
  write_all(out_fd, "ok\n");
  return 0;
}

fs::path probe_helper_path() {
  return fs::path(boost::dll::this_line_location().parent_path()) / "dalembert" / "dalembert-probe-plugin";
}

std::string probe_plugin_file(const fs::path& file) {
  if (g_in_probe_process) return "";  // the parent probed it
  // One probe at a time: each runs once per file and process, and this keeps the cache simple.
  static std::mutex m;
  static std::map<std::string, std::string> verdicts;
  std::lock_guard<std::mutex> lock(m);
  const auto it = verdicts.find(file.string());
  if (it != verdicts.end()) return it->second;
  return verdicts[file.string()] = probe_or_remember(file);
}

int probe_plugin_main(const fs::path& file, int out_fd) {
  write_all(out_fd, kReady);
  const LoadedPlugin loaded = load_plugin_file(file);
  write_all(out_fd, loaded.descriptor ? std::string("ok\n") : "refused " + loaded.refusal + "\n");
  return 0;
}

}  // namespace dalembert
