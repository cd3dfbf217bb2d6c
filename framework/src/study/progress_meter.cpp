#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dalembert/study/progress_meter.hpp>
#include <unistd.h>

namespace dalembert {

namespace {

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string duration_text(double s) {
  char buf[32];
  if (!std::isfinite(s)) return "?";
  if (s < 120) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 7200) std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  else std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  return buf;
}

}  // namespace

double batch_progress_interval() {
  if (const char* env = std::getenv("DALEMBERT_PROGRESS_SECONDS")) {
    char* end = nullptr;
    const double s = std::strtod(env, &end);
    if (end != env && *end == '\0' && s > 0 && s < 1e6) return s;
  }
  return 30.0;
}

ProgressMeter::ProgressMeter(bool enabled, std::string name, long total_steps, long total_tasks, double interval_s)
    : name_(std::move(name)), total_steps_(total_steps), total_tasks_(total_tasks), t0_(std::chrono::steady_clock::now()) {
  if (!enabled || total_tasks <= 0) return;
  const bool terminal = isatty(STDERR_FILENO);
  thread_ = std::thread([this, terminal, interval_s] { loop(terminal, interval_s); });
}

ProgressMeter::~ProgressMeter() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string ProgressMeter::line() const {
  const double elapsed = seconds(std::chrono::steady_clock::now() - t0_);
  const double f = total_steps_ > 0 ? std::min(1.0, double(steps.load()) / double(total_steps_)) : 0.0;
  const double eta = f > 0 ? elapsed * (1.0 - f) / f : NAN;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %5.1f%%  %ld/%ld tasks  %s elapsed  ETA %s", name_.c_str(), 100.0 * f,
                tasks.load(), total_tasks_, duration_text(elapsed).c_str(), duration_text(eta).c_str());
  return buf;
}

void ProgressMeter::loop(bool terminal, double interval_s) {
  std::unique_lock<std::mutex> lock(m_);
  const auto period = terminal ? std::chrono::milliseconds(250)
                               : std::chrono::milliseconds(static_cast<long>(1000.0 * interval_s));
  while (!cv_.wait_for(lock, period, [this] { return stop_; })) {
    if (terminal) std::fprintf(stderr, "\r%s ", line().c_str());
    else std::fprintf(stderr, "%s\n", line().c_str());
    std::fflush(stderr);
  }
  if (terminal) std::fprintf(stderr, "\r%*s\r", 90, "");
}

}  // namespace dalembert
