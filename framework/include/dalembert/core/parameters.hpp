#pragma once
// Declared plugin parameters and their resolved values. Values come from JSON (the edge of the
// program) and are checked once against the declaration: unknown names, wrong types and
// out-of-range values are InputErrors naming the parameter, the plugin and the JSON path.
#include <boost/config.hpp>
#include <dalembert/core/input_signal.hpp>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// Input: a signal u(t) (core/input_signal.hpp), given by the study as a number, sinusoids, a
/// table, a CSV file or one of the declaration's presets; its range is [min, max].
enum class ParamType { Number, Integer, Boolean, String, Json, Input };
const char* to_string(ParamType);

class Parameters;

/// A named signal a system offers for one of its inputs (e.g. a paper's gait): made from the
/// system's other, already resolved parameters.
struct InputPreset {
  std::string name;
  std::string doc;
  std::function<nlohmann::json(const Parameters&)> signal;  // one of InputSignal's JSON forms
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Number;
  nlohmann::json default_value;  // null = required
  std::string doc;
  double min = -std::numeric_limits<double>::infinity();  // Number/Integer only, inclusive
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // String only; empty = any
  std::string unit;                  // Input (and any parameter that has one): "N m", "rad/s"
  std::vector<InputPreset> presets;  // Input only: {"preset": name} in the study
};

/// Resolved parameters: every declared name has a value of the declared type.
class BOOST_SYMBOL_VISIBLE Parameters {
 public:
  Parameters() = default;
  /// Checks `given` (a JSON object or null) against `specs`; fills defaults.
  /// `owner` names the plugin, `where` is "file: /json/path" of the params object (an input's CSV
  /// file is read relative to that file's folder). Inputs are resolved last, so that a preset may
  /// read the other parameters.
  static Parameters resolve(const std::vector<ParamSpec>& specs, const nlohmann::json& given,
                            const std::string& owner, const std::string& where);

  double number(const std::string& name) const;
  long integer(const std::string& name) const;
  bool boolean(const std::string& name) const;
  const std::string& string(const std::string& name) const;
  const nlohmann::json& json(const std::string& name) const;
  /// An Input parameter's signal (copy it into the model when the system is made).
  const InputSignal& input(const std::string& name) const;
  /// The Input parameters the study gave (not left to their defaults), in declaration order: the
  /// trajectory records them.
  const std::vector<std::string>& given_inputs() const { return given_inputs_; }
  /// Where a parameter came from ("file: /json/path/name"), for errors found later.
  std::string where(const std::string& name) const;
  bool has(const std::string& name) const { return values_.contains(name); }

  /// All values, as JSON (written to the manifest as "the study as run").
  nlohmann::json to_json() const;

 private:
  const nlohmann::json& get(const std::string& name, ParamType) const;
  void resolve_input(const ParamSpec& s, const nlohmann::json& given, const std::filesystem::path& folder);
  std::map<std::string, nlohmann::json> values_;
  std::map<std::string, ParamType> types_;
  std::map<std::string, InputSignal> inputs_;
  std::vector<std::string> given_inputs_;
  std::string owner_, where_;
};

/// The nearest of `candidates` to `name` by edit distance ("" if none is close).
std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates);

/// The items separated by `separator` ("a, b, c"): the lists of choices error messages name.
std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ");

}  // namespace dalembert
