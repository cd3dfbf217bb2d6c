#include <algorithm>
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/figure_schema.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/limits.hpp>
#include <dalembert/study/names.hpp>
#include <dalembert/study/study.hpp>
#include <dalembert/study/study_kind.hpp>
#include <dalembert/study/table_format.hpp>
#include <filesystem>
#include <sstream>

namespace dalembert {

// A string that names a file, a CSV cell or a column: see is_safe_name.
std::string safe_name(const JsonCursor& c, const std::string& what) {
  std::string name = c.string();
  if (!is_safe_name(name)) c.fail(safe_name_rule(what));
  return name;
}

namespace {
std::string plugin_name(const JsonCursor& c) {
  std::string name = c.string();
  if (!is_safe_plugin_name(name)) c.fail(safe_plugin_name_rule());
  return name;
}
}  // namespace

PluginUse parse_plugin(const JsonCursor& c, std::vector<std::string> extra_keys) {
  std::vector<std::string> keys = {"plugin", "params"};
  keys.insert(keys.end(), extra_keys.begin(), extra_keys.end());
  if (c.json().is_string()) {  // shorthand: "rk4"
    PluginUse u;
    u.plugin = plugin_name(c);
    u.where = c.where();
    return u;
  }
  c.allow_keys(keys);
  PluginUse u;
  u.plugin = plugin_name(c["plugin"]);
  if (c.has("params")) {
    if (!c["params"].json().is_object()) c["params"].fail("expected a JSON object of parameters");
    u.params = c["params"].json();
  }
  u.where = c.where();
  return u;
}

namespace {

Vec parse_vector(const JsonCursor& c) {
  const auto xs = c.numbers();
  return Eigen::Map<const Vec>(xs.data(), static_cast<Eigen::Index>(xs.size()));
}

}  // namespace

nlohmann::json parse_figures(const JsonCursor& root, const std::vector<std::string>& types,
                             const std::vector<std::string>& labels) {
  if (!root.has("figures")) return nlohmann::json::array();
  const JsonCursor f = root["figures"];
  if (!f.json().is_array()) f.fail("expected an array of figures");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const JsonCursor fi = f.at(i);
    if (!fi.json().is_object()) fi.fail("expected a JSON object");
    (void)safe_name(fi["name"], "figure name");
    const std::string name = fi["name"].string();
    if (name == "index") fi["name"].fail("\"index\" is reserved (figures/index.json lists the figures drawn)");
    if (std::find(names.begin(), names.end(), name) != names.end()) fi["name"].fail("duplicate figure name");
    names.push_back(name);
    const std::string type = fi["type"].string();
    if (std::find(types.begin(), types.end(), type) == types.end()) {
      fi["type"].fail("this study kind draws figures of type " + joined(types));
    }
    check_figure(fi, type, labels);
  }
  return f.json();
}

std::vector<std::string> labels_of(const std::vector<PluginUse>& integrators) {
  std::vector<std::string> out;
  for (const auto& u : integrators) out.push_back(u.label);
  return out;
}

long steps_for(double T, double h, const std::string& where) {
  const double n = T / std::abs(h);
  const auto num = [](double x) { return nlohmann::json(x).dump(); };  // shortest round-trip form
  // Beyond 2^62 steps lround overflows; check_steps refuses far less long before (this is for code).
  if (!(n < 4.6e18)) throw InputError(where, "T/h = " + num(n) + " steps cannot be counted");
  const long steps = std::lround(n);
  if (steps < 1 || std::abs(n - static_cast<double>(steps)) > 1e-9 * std::max(1.0, n)) {
    throw InputError(where, "T = " + num(T) + " is not a whole number of steps of h = " + num(h) + " (T/h = " + num(n) + ")");
  }
  return steps;
}

std::string trajectory_file(const Study& st, const std::string& label) {
  return "trajectory_" + label + table_format(st.record_format).extension();
}

Study load_study(const std::string& file) { return parse_study(parse_json_file(file), file); }

namespace {

// The study name: its "name", or else the file's stem (the same rule applies; the error names the file).
std::string study_name(const JsonCursor& root, const std::string& file) {
  if (root.has("name")) return safe_name(root["name"], "study name");
  const std::string stem = std::filesystem::path(file.empty() ? "study" : file).stem().string();
  if (!is_safe_name(stem))
    throw InputError(file, "the study has no \"name\", so its file name gives it, but " + nlohmann::json(stem).dump() +
                               " is not a valid name: " + safe_name_rule("study name"));
  return stem;
}

}  // namespace

// "record_format": the format of trajectory files. Only kinds that write trajectory files (and,
// through their cells, sweeps of them) take one, so "npy" in any other kind is refused, not ignored.
std::string parse_record_format(const JsonCursor& root, const StudyKind& kind) {
  if (!root.has("record_format")) return "csv";
  const JsonCursor f = root["record_format"];
  check_one_of(f, table_format_names(), "not a record format; use one of: ");
  if (f.string() != "csv" && !kind.writes_trajectories())
    f.fail("record format \"" + f.string() + "\" is for trajectory files, and " + kind.name() +
           " studies write none (trajectory studies and sweeps of them do)");
  return f.string();
}

namespace {

// The keys of every study, then those of every kind (a key of another kind is refused by
// parse_study_runs, naming the kind it belongs to).
std::vector<std::string> study_keys() {
  std::vector<std::string> keys = {"name", "description", "seed", "kind", "system", "initial", "integrators",
                                   "observers", "T", "h", "record_every", "plugin_paths", "figures", "claims",
                                   "impact_map", "limits", "check_derivatives", "record_format"};
  for (const StudyKind* k : study_kinds())
    for (const auto& key : k->keys())
      if (std::find(keys.begin(), keys.end(), key.key) == keys.end()) keys.push_back(key.key);
  return keys;
}

const StudyKind& parse_kind(const JsonCursor& c) {
  const std::string name = c.string();
  if (const StudyKind* k = find_study_kind(name)) return *k;
  std::vector<std::string> names;
  for (const StudyKind* k : study_kinds()) names.push_back(k->name());
  const std::string last = names.back();
  names.pop_back();
  c.fail("unknown study kind: use " + joined(names) + " or " + last);
}

// A key another kind owns: refused with that kind's message.
void refuse_other_kinds_keys(const JsonCursor& root, const StudyKind& kind) {
  std::vector<std::string> mine;
  for (const auto& key : kind.keys()) mine.push_back(key.key);
  for (const StudyKind* other : study_kinds())
    for (const auto& key : other->keys())
      if (root.has(key.key) && std::find(mine.begin(), mine.end(), key.key) == mine.end()) root[key.key].fail(key.elsewhere);
}

}  // namespace

Study parse_study(const nlohmann::json& j, const std::string& file) {
  const JsonCursor root(j, file);
  root.allow_keys(study_keys());
  Study s;
  s.file = file;
  s.raw = j;
  s.limits = parse_limits(root);
  check_array_sizes(root, s.limits);
  s.name = study_name(root, file);
  s.description = root.has("description") ? root["description"].string() : "";
  const StudyKind& kind = parse_kind(root["kind"]);
  s.kind = kind.name();
  return kind.parse(root, std::move(s));
}

void parse_plugin_paths(const JsonCursor& root, Study& s) {
  if (!root.has("plugin_paths")) return;
  const JsonCursor p = root["plugin_paths"];
  const auto base = std::filesystem::path(s.file).parent_path();
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::filesystem::path path = p.at(i).string();
    const bool relative = path.is_relative();
    if (relative) path = base / path;  // relative to the study file
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      p.at(i).fail("no such plugin folder or file" + (relative ? " (looked for " + path.string() + ")" : std::string()));
    s.plugin_paths.push_back(std::filesystem::absolute(path).lexically_normal().string());  // the manifest's record
  }
}

void parse_integrators(const JsonCursor& ints, Study& s, const StudyKind& kind) {
  if (ints.size() == 0) ints.fail("a study needs at least one integrator");
  for (std::size_t i = 0; i < ints.size(); ++i) {
    const JsonCursor c = ints.at(i);
    PluginUse u = parse_plugin(c, {"label", "h", "display", "reference"});
    u.label = c.json().is_object() && c.has("label") ? safe_name(c["label"], "label") : default_label(u.plugin);
    if (c.json().is_object() && c.has("display")) u.display = c["display"].string();  // a figure's name for it
    if (c.json().is_object() && c.has("reference")) u.reference = c["reference"].boolean();
    if (c.json().is_object() && c.has("h")) {
      if (kind.ladder()) c["h"].fail("a per-integrator h is not allowed in " + s.kind + " studies");
      u.h = c["h"].number();
      if (u.h == 0.0) c["h"].fail("h must not be zero");
    }
    for (const auto& other : s.integrators)
      if (other.label == u.label) c.fail("duplicate integrator label \"" + u.label + "\"");
    s.integrators.push_back(u);
  }
}

void parse_study_runs(const JsonCursor& root, Study& s, const StudyKind& kind) {
  refuse_other_kinds_keys(root, kind);
  s.system = parse_plugin(root["system"], {});
  if (root.has("impact_map")) s.impact_map = parse_plugin(root["impact_map"], {});

  const JsonCursor init = root["initial"];
  init.allow_keys({"t", "q", "v", "project"});
  s.initial.state.t = init.has("t") ? init["t"].number() : 0.0;
  s.initial.state.q = parse_vector(init["q"]);
  s.initial.state.v = parse_vector(init["v"]);
  s.initial.project = init.has("project") ? init["project"].boolean() : false;
  s.initial.where = init.where();

  const JsonCursor ints = root["integrators"];
  parse_integrators(ints, s, kind);

  if (root.has("observers")) {
    const JsonCursor obs = root["observers"];
    for (std::size_t i = 0; i < obs.size(); ++i) s.observers.push_back(parse_plugin(obs.at(i), {}));
  } else if (kind.default_observers()) {
    for (const char* name : {"energy_error", "constraint_residual"}) {
      PluginUse u;
      u.plugin = name;
      u.where = root.where() + " (default observers)";
      s.observers.push_back(u);
    }
  }

  s.T = root["T"].number();
  if (!(s.T > 0.0)) root["T"].fail("the horizon T must be positive");

  const JsonCursor h = root["h"];
  if (!kind.ladder()) {
    s.h = {h.number()};
  } else {
    s.h = h.numbers();
    if (s.h.size() < 2) h.fail("a " + s.kind + " study needs a ladder of at least two step sizes");
  }
  for (std::size_t i = 0; i < s.h.size(); ++i) {
    const JsonCursor hi = !kind.ladder() ? h : h.at(i);
    if (s.h[i] == 0.0) hi.fail("h must not be zero");
    if (kind.ladder() && s.h[i] < 0.0) hi.fail(s.kind + " step sizes must be positive");
    check_steps(root["T"], s.T, s.h[i], s.limits);
    steps_for(s.T, s.h[i], hi.where());
  }
  for (std::size_t i = 0; i < s.integrators.size(); ++i)
    if (s.integrators[i].h != 0.0) {
      check_steps(root["T"], s.T, s.integrators[i].h, s.limits);
      steps_for(s.T, s.integrators[i].h, ints.at(i)["h"].where());
    }

  if (root.has("check_derivatives")) s.check_derivatives = root["check_derivatives"].boolean();
  if (root.has("record_every")) {
    s.record_every = root["record_every"].integer();
    if (s.record_every < 1) root["record_every"].fail("record_every must be at least 1");
  }
  s.record_format = parse_record_format(root, kind);
  kind.parse_keys(root, s);

  parse_plugin_paths(root, s);
  s.figures = parse_figures(root, kind.figure_types(), labels_of(s.integrators));
  kind.check_figures(root, s);
  s.claims = parse_claims(root, kind, labels_of(s.integrators));
  check_workload(root, workload(s), s.limits);
}

}  // namespace dalembert
