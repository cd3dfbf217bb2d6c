#pragma once
// A study: one JSON file describing a system, an initial state, labelled integrators, step sizes,
// a horizon, observers, figures and a kind (study/study_kind.hpp: trajectory, convergence,
// work_precision, ensemble, sweep). Parsed once into this typed struct; every field remembers
// where it came from for error messages.
#include <boost/config.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/study/claims.hpp>
#include <dalembert/study/limits.hpp>
#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dalembert {

/// A plugin named in a study: `where` is "FILE: /json/path" of its object.
struct PluginUse {
  std::string label;   // integrators: the label in outputs and figures
  std::string plugin;
  nlohmann::json params = nlohmann::json::object();
  std::string where;
  double h = 0.0;      // integrators in a trajectory study: own step size (0: the study's)
  std::string display;  // integrators: the name figures show (matplotlib mathtext, e.g. "F^{0,0,1/2}"); "" = label
  bool reference = false;  // integrators: drawn in figures as the reference curve (first, thick, grey)
};

struct InitialState {
  State state;
  bool project = false;  // project v onto D_q instead of refusing a state that violates the constraints
  std::string where;
};

/// Convergence reference: the system's exact solution, or a declared high-accuracy run.
struct Reference {
  bool exact = true;
  PluginUse run;  // when !exact: integrator and its step size (run.h)
};

/// Ensemble studies: N initial states drawn by a sampler, every member integrated.
struct EnsembleSpec {
  long size = 0;
  std::uint64_t seed = 0;
  PluginUse sampler;
  std::vector<double> quantiles;  // e.g. 0.05, 0.5, 0.95
  bool write_members = true;      // every member's recorded rows to ensemble_members_<label>.csv
};

/// One axis of a sweep: a name, the JSON pointers into the study that take its values, the values.
struct SweepAxis {
  std::string name;
  std::vector<std::string> set;  // e.g. "/integrators/0/params/beta"
  std::vector<double> values;
};

/// Sweep studies: a grid over any system or integrator parameter; each cell is the study itself
/// (kind `of`) with the axis values written in.
struct SweepSpec {
  std::string of;  // "trajectory" or "convergence"
  std::vector<SweepAxis> axes;
};

struct Study {
  std::string file;  // where it was read from ("" if built in code)
  std::string name, kind, description;
  PluginUse system;
  InitialState initial;
  std::vector<PluginUse> integrators;
  std::vector<PluginUse> observers;
  std::optional<PluginUse> impact_map;  // hybrid systems: the law applied when a guard fires
  double T = 0.0;
  std::vector<double> h;  // trajectory: one value; convergence: the ladder
  long record_every = 1;
  std::string record_format = "csv";  // trajectory files: a table format's name (study/table_format.hpp)
  bool check_derivatives = true;  // the bind-time derivative check (study/derivative_check.hpp)
  Reference reference;
  double order_tolerance = 0.15;  // |fitted − declared| allowed by the convergence audit
  double plateau = 1e-12;         // errors below this are round-off, masked from the fit
  int repeats = 5;                // work_precision: timed runs per integrator and h (median, min, max)
  std::vector<std::string> plugin_paths;
  EnsembleSpec ensemble;  // kind == "ensemble"
  SweepSpec sweep;        // kind == "sweep"
  nlohmann::json figures = nlohmann::json::array();
  std::vector<ClaimCheck> claims;  // the checks of its "claims" block (study/claims.hpp)
  Limits limits;       // the study's "limits" over the defaults
  nlohmann::json raw;  // the file as read
  std::string where(const std::string& json_path) const { return file + ": " + json_path; }
};

/// The trajectory file of integrator `label`: trajectory_<label> and the extension of the study's
/// record format (study/table_format.hpp): .csv, or .npy with "record_format": "npy".
std::string trajectory_file(const Study& st, const std::string& label);

/// Reads and checks a study file (syntax, keys, types, values, names, limits; a sweep: every cell).
Study load_study(const std::string& file);
/// Checks a parsed study; `file` names it in errors.
Study parse_study(const nlohmann::json& j, const std::string& file);

/// The number of steps of size h that reach T; an InputError at `where` if T is not a multiple of h.
long steps_for(double T, double h, const std::string& where);

}  // namespace dalembert
