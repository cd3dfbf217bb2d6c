#include <dalembert/study/names.hpp>

namespace dalembert {

namespace {
constexpr std::size_t kMaxNameLength = 100;

bool safe_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '+' || c == '-';
}
}  // namespace

bool is_safe_name(const std::string& s) {
  if (s.empty() || s.size() > kMaxNameLength || s[0] == '.' || s[0] == '-') return false;
  for (char c : s)
    if (!safe_char(c)) return false;
  return true;
}

std::string safe_name_rule(const std::string& what) {
  return "a " + what + " may contain only letters, digits and _ . + - (at most " + std::to_string(kMaxNameLength) +
         " characters, not starting with '.' or '-')";
}

namespace {
// The position of the ':' ending a scheme of letters at the start of `s`, or npos.
std::size_t scheme_end(const std::string& s) {
  const std::size_t colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 16) return std::string::npos;
  for (std::size_t i = 0; i < colon; ++i)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) return std::string::npos;
  return colon;
}
}  // namespace

bool is_safe_plugin_name(const std::string& s) {
  if (is_safe_name(s)) return true;
  const std::size_t colon = scheme_end(s);
  return colon != std::string::npos && is_safe_name(s.substr(colon + 1));
}

std::string safe_plugin_name_rule() {
  return safe_name_rule("plugin name") + ", or SCHEME:NAME for a plugin made in the process (python:module.Class)";
}

std::string default_label(const std::string& plugin) {
  const std::size_t colon = scheme_end(plugin);
  return colon == std::string::npos ? plugin : plugin.substr(colon + 1);
}

}  // namespace dalembert
