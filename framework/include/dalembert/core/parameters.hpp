#pragma once
// Declared plugin parameters and their resolved values. Values come from JSON (the edge of the
// program) and are checked once against the declaration: unknown names, wrong types and
// out-of-range values are InputErrors naming the parameter, the plugin and the JSON path.
#include <boost/config.hpp>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

enum class ParamType { Number, Integer, Boolean, String, Json };
const char* to_string(ParamType);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Number;
  nlohmann::json default_value;  // null = required
  std::string doc;
  double min = -std::numeric_limits<double>::infinity();  // Number/Integer only, inclusive
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // String only; empty = any
};

/// Resolved parameters: every declared name has a value of the declared type.
class BOOST_SYMBOL_VISIBLE Parameters {
 public:
  Parameters() = default;
  /// Checks `given` (a JSON object or null) against `specs`; fills defaults.
  /// `owner` names the plugin, `where` is "file: /json/path" of the params object.
  static Parameters resolve(const std::vector<ParamSpec>& specs, const nlohmann::json& given,
                            const std::string& owner, const std::string& where);

  double number(const std::string& name) const;
  long integer(const std::string& name) const;
  bool boolean(const std::string& name) const;
  const std::string& string(const std::string& name) const;
  const nlohmann::json& json(const std::string& name) const;
  /// Where a parameter came from ("file: /json/path/name"), for errors found later.
  std::string where(const std::string& name) const;
  bool has(const std::string& name) const { return values_.contains(name); }

  /// All values, as JSON (written to the manifest as "the study as run").
  nlohmann::json to_json() const;

 private:
  const nlohmann::json& get(const std::string& name, ParamType) const;
  std::map<std::string, nlohmann::json> values_;
  std::map<std::string, ParamType> types_;
  std::string owner_, where_;
};

/// The nearest of `candidates` to `name` by edit distance ("" if none is close).
std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates);

/// The items separated by `separator` ("a, b, c"): the lists of choices error messages name.
std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ");

}  // namespace dalembert
