#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <sstream>

namespace dalembert {

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Number: return "number";
    case ParamType::Integer: return "integer";
    case ParamType::Boolean: return "boolean";
    case ParamType::String: return "string";
    case ParamType::Json: return "JSON value";
    case ParamType::Input: return "input signal";
  }
  return "?";
}

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

bool type_matches(ParamType t, const nlohmann::json& v) {
  switch (t) {
    case ParamType::Number: return v.is_number();
    case ParamType::Integer: return v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
    case ParamType::Boolean: return v.is_boolean();
    case ParamType::String: return v.is_string();
    case ParamType::Json: return true;
    case ParamType::Input: return v.is_number() || v.is_object();
  }
  return false;
}

// The declared bounds of an Integer parameter within what Parameters::integer returns (int64).
constexpr double kTwo63 = 9223372036854775808.0;  // 2^63, exact
constexpr double kTwo53 = 9007199254740992.0;     // 2^53: from it on, doubles skip integers
long long integer_bound(double declared, bool upper) {
  if (upper) return declared >= kTwo63 ? LLONG_MAX : declared < -kTwo63 ? LLONG_MIN : static_cast<long long>(std::floor(declared));
  return declared <= -kTwo63 ? LLONG_MIN : declared >= kTwo63 ? LLONG_MAX : static_cast<long long>(std::ceil(declared));
}

// An Integer parameter's value as an int64 in its declared [min, max], or an InputError naming
// plugin, parameter and value. The value is checked before any conversion: a double such as 1e19
// or 2^64 has no int64 (casting it is undefined), an unsigned above 2^63 - 1 would wrap negative,
// and a double above 2^53 may be another integer than the one written (the parser rounded it).
nlohmann::json checked_integer(const ParamSpec& s, const nlohmann::json& v, const std::string& owner,
                               const std::string& at) {
  const std::string head = "= " + v.dump() + ": parameter '" + s.name + "' of plugin '" + owner + "' must ";
  const long long lo = integer_bound(s.min, false), hi = integer_bound(s.max, true);
  bool fits = true;
  long long n = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    fits = u <= static_cast<std::uint64_t>(LLONG_MAX);
    n = fits ? static_cast<long long>(u) : 0;
  } else if (v.is_number_integer()) {
    n = v.get<long long>();
  } else {  // an integral double (type_matches)
    const double x = v.get<double>();
    fits = std::abs(x) < kTwo63;
    if (fits && std::abs(x) >= kTwo53)  // 2^53 itself may have been written 2^53 + 1
      throw InputError(at, head + "be an integer written without a fraction or an exponent: beyond 2^53 a double "
                                  "does not say which integer");
    n = fits ? static_cast<long long>(x) : 0;
  }
  if (!fits || n < lo || n > hi)
    throw InputError(at, head + "lie in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (an integer)");
  return n;
}

std::string join_path(const std::string& where, const std::string& key) {
  return where.empty() ? "/" + key : where + "/" + key;
}

// The folder of the file a "FILE: /json/path" location names (an input's CSV file is relative to
// it); the working directory when it names no file (a study built in Python).
std::filesystem::path folder_of(const std::string& where) {
  const auto colon = where.find(": /");
  if (colon == std::string::npos) return {};
  std::error_code ec;
  const std::filesystem::path file = where.substr(0, colon);
  return std::filesystem::is_regular_file(file, ec) ? file.parent_path() : std::filesystem::path();
}

std::string bounds_text(double lo, double hi) {
  return "[" + number_text(lo, "%.17g") + ", " + number_text(hi, "%.17g") + "]";
}

// A preset's signal, made from the parameters resolved so far.
nlohmann::json expand_preset(const ParamSpec& s, const nlohmann::json& v, const Parameters& p, const std::string& owner,
                             const std::string& at) {
  if (!v.is_object() || !v.contains("preset")) return v;
  const nlohmann::json& name = v.at("preset");
  std::vector<std::string> names;
  for (const auto& x : s.presets) names.push_back(x.name);
  for (const auto& x : s.presets)
    if (name.is_string() && name.get<std::string>() == x.name) {
      if (v.size() != 1) throw InputError(at, "= " + v.dump() + ": a preset is given alone, {\"preset\": NAME}");
      return x.signal(p);
    }
  throw InputError(at + "/preset", "= " + name.dump() + ": input '" + s.name + "' of plugin '" + owner + "' has " +
                                       (names.empty() ? "no presets" : "the presets " + joined(names)));
}
}  // namespace

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& x : items) out += (out.empty() ? "" : separator) + x;
  return out;
}

std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(name, c);
    if (d < best_d) best_d = d, best = c;
  }
  // Close means: at most a third of the name differs (and at least one edit allowed).
  if (best_d == std::string::npos || best_d > std::max<std::size_t>(2, name.size() / 3)) return {};
  return best;
}

Parameters Parameters::resolve(const std::vector<ParamSpec>& specs, const nlohmann::json& given,
                               const std::string& owner, const std::string& where) {
  Parameters p;
  p.owner_ = owner;
  p.where_ = where;
  if (!given.is_null() && !given.is_object())
    throw InputError(where, "parameters of '" + owner + "' must be a JSON object, got " + given.dump());
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  if (given.is_object()) {
    for (const auto& [key, value] : given.items()) {
      if (std::find(names.begin(), names.end(), key) == names.end()) {
        std::string msg = "unknown parameter '" + key + "' for plugin '" + owner + "'";
        const std::string near = nearest_name(key, names);
        if (!near.empty()) msg += " (did you mean '" + near + "'?)";
        msg += "; its parameters are: " + (names.empty() ? std::string("none") : joined(names));
        throw InputError(join_path(where, key), msg);
      }
    }
  }
  for (const auto& s : specs) {
    if (s.type == ParamType::Input) continue;  // below, once the others are known
    const std::string at = join_path(where, s.name);
    nlohmann::json v;
    if (given.is_object() && given.contains(s.name)) {
      v = given.at(s.name);
    } else if (!s.default_value.is_null() || s.type == ParamType::Json) {
      v = s.default_value;  // a Json parameter with a null default is optional
    } else {
      throw InputError(at, "missing required parameter '" + s.name + "' of plugin '" + owner + "' (" + s.doc + ")");
    }
    if (!type_matches(s.type, v))
      throw InputError(at, "= " + v.dump() + ": parameter '" + s.name + "' of plugin '" + owner + "' must be " +
                               (s.type == ParamType::Integer ? "an " : "a ") + to_string(s.type));
    if (s.type == ParamType::Number) {
      const double x = v.get<double>();
      if (!std::isfinite(x) || x < s.min || x > s.max) {
        std::ostringstream os;
        os << "= " << v.dump() << ": parameter '" << s.name << "' of plugin '" << owner << "' must lie in ["
           << s.min << ", " << s.max << "]";
        throw InputError(at, os.str());
      }
    }
    if (s.type == ParamType::Integer) v = checked_integer(s, v, owner, at);
    if (s.type == ParamType::String && !s.choices.empty() &&
        std::find(s.choices.begin(), s.choices.end(), v.get<std::string>()) == s.choices.end()) {
      throw InputError(at, "= " + v.dump() + ": parameter '" + s.name + "' of plugin '" + owner + "' must be one of " +
                               joined(s.choices));
    }
    p.values_[s.name] = v;
    p.types_[s.name] = s.type;
  }
  for (const auto& s : specs)
    if (s.type == ParamType::Input) p.resolve_input(s, given, folder_of(where));
  return p;
}

void Parameters::resolve_input(const ParamSpec& s, const nlohmann::json& given, const std::filesystem::path& folder) {
  const std::string at = join_path(where_, s.name);
  const bool is_given = given.is_object() && given.contains(s.name);
  const nlohmann::json v = is_given ? given.at(s.name) : s.default_value.is_null() ? nlohmann::json(0.0) : s.default_value;
  if (!type_matches(s.type, v))
    throw InputError(at, "= " + v.dump() + ": input '" + s.name + "' of plugin '" + owner_ + "' must be a number or a "
                                                                                        "signal object");
  const InputSignal u = InputSignal::parse(expand_preset(s, v, *this, owner_, at), at, folder);
  if (u.lower_bound() < s.min || u.upper_bound() > s.max)
    throw InputError(at, "input '" + s.name + "' of plugin '" + owner_ + "' takes values in " +
                             bounds_text(u.lower_bound(), u.upper_bound()) + ", outside its range " +
                             bounds_text(s.min, s.max) + (s.unit.empty() ? "" : " " + s.unit));
  values_[s.name] = u.to_json();
  types_[s.name] = s.type;
  inputs_[s.name] = u;
  if (is_given) given_inputs_.push_back(s.name);
}

const nlohmann::json& Parameters::get(const std::string& name, ParamType t) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error("plugin '" + owner_ + "' asked for undeclared parameter '" + name + "'");
  if (types_.at(name) != t && t != ParamType::Json)
    throw Error("plugin '" + owner_ + "' reads parameter '" + name + "' as " + to_string(t) + " but declared it " +
                to_string(types_.at(name)));
  return it->second;
}

double Parameters::number(const std::string& n) const { return get(n, ParamType::Number).get<double>(); }
long Parameters::integer(const std::string& n) const { return get(n, ParamType::Integer).get<long>(); }
bool Parameters::boolean(const std::string& n) const { return get(n, ParamType::Boolean).get<bool>(); }
const std::string& Parameters::string(const std::string& n) const {
  return get(n, ParamType::String).get_ref<const std::string&>();
}
const nlohmann::json& Parameters::json(const std::string& n) const { return get(n, ParamType::Json); }
const InputSignal& Parameters::input(const std::string& n) const {
  (void)get(n, ParamType::Input);
  return inputs_.at(n);
}
std::string Parameters::where(const std::string& name) const { return join_path(where_, name); }

nlohmann::json Parameters::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : values_) j[k] = v;
  return j;
}

}  // namespace dalembert
