#include <atomic>
#include <dalembert/core/warn_once.hpp>
#include <iostream>
#include <mutex>
#include <set>

namespace dalembert {

namespace {
std::atomic<bool> muted{false};
}

void warn_once(const std::string& key, const std::string& message) {
  static std::mutex m;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(m);
  // std::cerr (unbuffered, synchronised with stdio): a program that embeds the framework, or a
  // test, can redirect it.
  if (seen.insert(key).second && !muted) std::cerr << "warning: " << message << '\n';
}

void mute_warnings() { muted = true; }

}  // namespace dalembert
