// Names a run will report (study/reported_names.hpp).
#include <algorithm>
#include <cctype>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/reported_names.hpp>

namespace dalembert {

bool matches_name_pattern(const std::string& pattern, const std::string& name) {
  static const std::string k = "<k>";
  const std::size_t at = pattern.find(k);
  if (at == std::string::npos) return pattern == name;
  if (name.compare(0, at, pattern, 0, at) != 0) return false;
  std::size_t end = at;
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end == at || name[at] == '0') return false;
  // The integer may be followed by digits of the rest of the pattern: try every split.
  for (std::size_t e = at + 1; e <= end; ++e)
    if (matches_name_pattern(pattern.substr(at + k.size()), name.substr(e))) return true;
  return false;
}

bool ReportedNames::may_report(const std::string& name) const {
  return !known || std::find(names.begin(), names.end(), name) != names.end() || depends_on_run(name);
}

bool ReportedNames::depends_on_run(const std::string& name) const {
  if (std::find(names.begin(), names.end(), name) != names.end()) return false;
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return matches_name_pattern(p, name); });
}

std::string ReportedNames::text() const {
  std::string out = names.empty() ? "none" : joined(names);
  if (!patterns.empty()) out += "; depending on the run: " + joined(patterns);
  return out;
}

}  // namespace dalembert
