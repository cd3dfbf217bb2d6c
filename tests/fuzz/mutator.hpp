#pragma once
// Mutations of study files for the fuzz driver: a shipped study is first shrunk so a run takes
// well under a second (a few steps, small ensembles, two values per sweep axis), then one to three
// hostile edits are applied: extreme numbers, hostile strings, deleted or duplicated keys, deep
// nesting, huge arrays, type swaps, truncation, byte flips.
#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace dalembert::fuzz {

/// The study made cheap to run; still valid if the original was.
nlohmann::json shrink(nlohmann::json study);

/// A mutated study text; `what` receives a short description of the edits.
std::string mutate(const nlohmann::json& shrunk, std::mt19937_64& rng, std::string& what);

/// `study` as text with the value at JSON pointer `path` replaced by the raw JSON text `raw`, so
/// that numbers are written as given ("1e19", "9223372036854775808", "-0").
std::string with_raw_value(const nlohmann::json& study, const std::string& path, const std::string& raw);

}  // namespace dalembert::fuzz
