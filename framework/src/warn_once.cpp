#include <cstdio>
#include <dalembert/core/warn_once.hpp>
#include <mutex>
#include <set>

namespace dalembert {

void warn_once(const std::string& key, const std::string& message) {
  static std::mutex m;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(m);
  if (seen.insert(key).second) std::fprintf(stderr, "warning: %s\n", message.c_str());
}

}  // namespace dalembert
