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

}  // namespace dalembert
