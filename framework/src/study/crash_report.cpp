#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <dalembert/core/error_text.hpp>
#include <dalembert/study/crash_report.hpp>
#include <fcntl.h>
#include <mutex>
#include <unistd.h>

namespace dalembert {

namespace {

constexpr std::size_t kLineMax = 4096;
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kSignalCount = sizeof kSignals / sizeof kSignals[0];

// This thread's context: "error: <what> crashed the process with " (t_length = 0: none).
thread_local char t_line[kLineMax];
thread_local std::size_t t_length = 0;

// The run's error.txt (NUL-terminated), when g_has_folder.
char g_error_file[PATH_MAX];
std::atomic<bool> g_has_folder{false};

struct sigaction g_previous[kSignalCount];

const char* signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (aborted)";
  }
  return "a signal";
}

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

// Appends `s` to buf[0, n) within `cap` bytes.
void append(char* buf, std::size_t& n, std::size_t cap, const char* s) {
  const std::size_t k = std::min(std::strlen(s), cap - n);
  std::memcpy(buf + n, s, k);
  n += k;
}

// Async-signal-safe only: memcpy, strlen, write, open, close, sigaction, raise.
void on_crash(int sig) {
  const int saved_errno = errno;
  char buf[kLineMax + 128];
  std::size_t n = 0;
  if (t_length > 0) {
    std::memcpy(buf, t_line, t_length);
    n = t_length;
  } else {
    append(buf, n, sizeof buf, "error: dalembert crashed outside any task of a plugin, with ");
  }
  append(buf, n, sizeof buf - 1, signal_text(sig));
  buf[n++] = '\n';
  write_all(STDERR_FILENO, buf, n);
  if (g_has_folder.load()) {
    const int fd = ::open(g_error_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) {
      write_all(fd, buf + 7, n - 7);  // without "error: ", as error.txt of a failed run
      ::close(fd);
    }
  }
  for (int i = 0; i < kSignalCount; ++i)
    if (kSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);  // default, or a sanitizer's
  errno = saved_errno;
  ::raise(sig);  // SA_NODEFER: delivered now; a fault that returns here faults again, to the previous handler
}

void set_line(const std::string& text) {
  t_length = 0;  // no half-written context if a signal comes now
  const std::size_t n = std::min(text.size(), kLineMax);  // CrashContext keeps it shorter
  std::memcpy(t_line, text.data(), n);
  t_length = n;
}

}  // namespace

void install_crash_report() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < kSignalCount; ++i) ::sigaction(kSignals[i], &sa, &g_previous[i]);
  });
}

CrashContext::CrashContext(const std::string& what) : outer_(t_line, t_length) {
  const std::string head = "error: " + one_line(what) + " crashed the process with ";
  if (head.size() <= kLineMax) {
    set_line(head);
    return;
  }
  // Too long (parameters with big arrays): cut the description, keep the end of the sentence.
  const std::string tail = "... crashed the process with ";
  set_line(head.substr(0, kLineMax - tail.size()) + tail);
}

CrashContext::~CrashContext() { set_line(outer_); }

CrashFolder::CrashFolder(const std::filesystem::path& staging) {
  const std::string file = (staging / "error.txt").string();
  if (file.size() >= sizeof g_error_file) return;  // no error.txt, the line on stderr still
  g_has_folder = false;
  std::memcpy(g_error_file, file.c_str(), file.size() + 1);
  g_has_folder = true;
}

CrashFolder::~CrashFolder() { g_has_folder = false; }

}  // namespace dalembert
