#pragma once
// A system's input u(t) (issue 30): a named, open-loop signal given by the study — a constant, a
// sum of sinusoids, a piecewise-linear or natural cubic table (inline, from numpy, or a CSV file),
// or a preset the system defines. A system declares an input as a parameter of type Input
// (ParamSpec with a unit, a range and its presets); the model reads `p.input("u")` once when it is
// made and evaluates it at t in its external force. Evaluation allocates nothing.
//
// JSON forms (the study's "params" of the system):
//   1.5                                        a constant (also {"constant": 1.5})
//   {"sinusoids": [{"amplitude": A, "frequency": f, "phase": φ, "function": "sin"|"cos"}],
//    "offset": c}                              c + Σ A·fn(2π f t + φ), f in Hz, φ in rad (default 0)
//   {"t": [...], "value": [...], "interpolation": "linear"|"cubic"}
//   {"csv": "file.csv", "interpolation": ...}  two columns t, value after one header line; the
//                                              path is relative to the study's folder
//   {"preset": "name"}                         a signal the system defines (ParamSpec::presets)
#include <boost/config.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE InputSignal {
 public:
  enum class Kind { Constant, Sinusoids, Linear, Cubic };

  InputSignal() = default;  // the constant 0
  static InputSignal constant(double c);

  /// Reads one of the JSON forms above (presets already expanded). `at` is "FILE: /json/path" for
  /// errors; a CSV path is relative to `folder`. Throws InputError naming the bad value.
  static InputSignal parse(const nlohmann::json& j, const std::string& at, const std::filesystem::path& folder);

  double operator()(double t) const;

  Kind kind() const { return kind_; }
  /// The times where it is defined: a table's first and last t (±∞ otherwise).
  double t_first() const;
  double t_last() const;
  /// Bounds of its values over its whole domain (a table's extreme values or its spline's; a
  /// sinusoid sum's c ± Σ|A|), checked against the declared range before a run.
  double lower_bound() const { return lower_; }
  double upper_bound() const { return upper_; }
  /// Its canonical JSON (a CSV file read in as a table): written to the manifest, reproducible.
  nlohmann::json to_json() const;

 private:
  struct Term {
    double amplitude, frequency, phase;
    bool cosine;
  };
  void set_table(std::vector<double> t, std::vector<double> v, Kind kind, const std::string& at);
  std::size_t interval(double t) const;
  double spline(std::size_t i, double t) const;
  void bound_spline();

  Kind kind_ = Kind::Constant;
  double offset_ = 0.0;
  std::vector<Term> terms_;
  std::vector<double> t_, v_, m_;  // table nodes, values, spline second derivatives
  double lower_ = 0.0, upper_ = 0.0;
};

}  // namespace dalembert
