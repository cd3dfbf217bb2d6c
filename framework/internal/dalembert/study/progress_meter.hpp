#pragma once
// Progress of a run: on a terminal, one line redrawn four times a second (percent, tasks, elapsed,
// ETA); otherwise (a batch job's log) one line on stderr every `interval` seconds. Steps and tasks
// are counted by the threads that run them; an MPI run's rank 0 adds the other ranks' counts.
#include <atomic>
#include <boost/config.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE ProgressMeter {
 public:
  /// `total_steps`, `total_tasks`: what this run computes (resumed tasks not included).
  ProgressMeter(bool enabled, std::string name, long total_steps, long total_tasks, double interval_s);
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  std::atomic<long> steps{0}, tasks{0};

  /// The line as it would be printed now (also used by the tests).
  std::string line() const;

 private:
  void loop(bool terminal, double interval_s);
  std::string name_;
  long total_steps_, total_tasks_;
  std::chrono::steady_clock::time_point t0_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

/// The interval between progress lines when stderr is not a terminal: $DALEMBERT_PROGRESS_SECONDS,
/// else 30 s.
BOOST_SYMBOL_VISIBLE double batch_progress_interval();

}  // namespace dalembert
