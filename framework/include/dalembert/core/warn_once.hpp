#pragma once
// A warning on stderr ("warning: <message>") printed at most once per `key` in the life of the
// process, however many registries or threads come across the same thing. Thread-safe.
#include <string>

namespace dalembert {

void warn_once(const std::string& key, const std::string& message);

}  // namespace dalembert
