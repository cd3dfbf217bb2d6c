#pragma once
// The outcome of one fuzz case: a clean refusal, a valid complete result, or a defect class.
#include "sandbox.hpp"
#include <string>

namespace dalembert::fuzz {

/// "error" (exit 1, one line "error: ..." on stderr, no output folder; or exit 3, claims failed
/// in a valid complete run folder) or "ok" (exit 0, a valid complete run folder); anything else is
/// a defect, named by a short class such as "signal 11", "exit 0: listed file missing" or "a
/// library's text on stderr: max_size()".
std::string classify(const ProcessResult& r, const std::filesystem::path& out, const Snapshot& before,
                     const Snapshot& after);

bool is_defect(const std::string& outcome);

}  // namespace dalembert::fuzz
