#include <algorithm>
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/convergence_table.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/study/figure_schema.hpp>
#include <dalembert/study/json_input.hpp>
#include <dalembert/study/limits.hpp>
#include <dalembert/study/names.hpp>
#include <dalembert/study/study.hpp>
#include <filesystem>
#include <sstream>

namespace dalembert {

namespace {

// A string that names a file, a CSV cell or a column: see is_safe_name.
std::string safe_name(const JsonCursor& c, const std::string& what) {
  std::string name = c.string();
  if (!is_safe_name(name)) c.fail(safe_name_rule(what));
  return name;
}

PluginUse parse_plugin(const JsonCursor& c, std::vector<std::string> extra_keys) {
  std::vector<std::string> keys = {"plugin", "params"};
  keys.insert(keys.end(), extra_keys.begin(), extra_keys.end());
  if (c.json().is_string()) {  // shorthand: "rk4"
    PluginUse u;
    u.plugin = safe_name(c, "plugin name");
    u.where = c.where();
    return u;
  }
  c.allow_keys(keys);
  PluginUse u;
  u.plugin = safe_name(c["plugin"], "plugin name");
  if (c.has("params")) {
    if (!c["params"].json().is_object()) c["params"].fail("expected a JSON object of parameters");
    u.params = c["params"].json();
  }
  u.where = c.where();
  return u;
}

Vec parse_vector(const JsonCursor& c) {
  const auto xs = c.numbers();
  return Eigen::Map<const Vec>(xs.data(), static_cast<Eigen::Index>(xs.size()));
}

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

// The columns of sweep.csv a sweep figure may name as an axis: "label", "cell", "ok" and the axis
// names. Its metrics ("y" of a sweep figure, "value" of a heatmap) are the cells' summaries and
// fitted orders, known only once the cells have run: the plotting script reports a missing one,
// naming the figure and the columns sweep.csv has.
void check_sweep_figures(const JsonCursor& root, const SweepSpec& spec) {
  if (!root.has("figures")) return;
  std::vector<std::string> axes;
  for (const auto& a : spec.axes) axes.push_back(a.name);
  const JsonCursor f = root["figures"];
  for (std::size_t i = 0; i < f.size(); ++i) {
    const JsonCursor fi = f.at(i);
    std::vector<const char*> keys = {"x", "series"};
    if (fi["type"].string() == "heatmap") keys.push_back("y");
    for (const char* k : keys)
      if (fi.has(k)) check_one_of(fi[k], axes, "not a sweep axis; the axes of sweep.csv are: ");
  }
}

// convergence.csv: its error columns are fixed (study/convergence_table.hpp).
void check_convergence_figures(const JsonCursor& root) {
  if (!root.has("figures")) return;
  const JsonCursor f = root["figures"];
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f.at(i).has("y")) check_one_of(f.at(i)["y"], convergence_error_columns(), "not a column of convergence.csv; its columns are: ");
}

}  // namespace

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

// A sweep pointer must name an existing place of the base study: its parent exists and, in an
// array, so does the element (a sweep never grows an array); in an object a new key is fine, so an
// axis can set a parameter the study leaves at its default.
void check_sweep_pointer(const JsonCursor& at, const nlohmann::json& base) {
  const nlohmann::json::json_pointer ptr(at.string());
  const auto parent = ptr.parent_pointer();
  if (!base.contains(parent)) at.fail("the study has no " + printable(parent.to_string()) + " for the sweep to set");
  const nlohmann::json& container = base.at(parent);
  const std::string& last = ptr.back();
  if (container.is_object()) return;
  if (!container.is_array()) at.fail(printable(parent.to_string()) + " is not an object or an array");
  const bool index = !last.empty() && last.size() < 10 && last.find_first_not_of("0123456789") == std::string::npos &&
                     (last == "0" || last[0] != '0');
  if (!index || std::stoul(last) >= container.size())
    at.fail("the sweep may only set existing elements of an array: " + printable(parent.to_string()) + " has " +
            std::to_string(container.size()) + " elements");
}

SweepAxis parse_axis(const JsonCursor& a, const nlohmann::json& base) {
  a.allow_keys({"name", "set", "values"});
  SweepAxis axis;
  axis.name = safe_name(a["name"], "sweep axis name");
  const JsonCursor set = a["set"];
  for (std::size_t k = 0; k < set.size(); ++k) {
    axis.set.push_back(set.at(k).string());
    if (axis.set.back().empty() || axis.set.back()[0] != '/') set.at(k).fail("a JSON pointer starts with '/'");
    try {
      (void)nlohmann::json::json_pointer(axis.set.back());
    } catch (const std::exception& e) {
      set.at(k).fail(std::string("not a JSON pointer: ") + e.what());
    }
    check_sweep_pointer(set.at(k), base);
  }
  if (axis.set.empty()) set.fail("an axis sets at least one value");
  axis.values = a["values"].numbers();
  if (axis.values.empty()) a["values"].fail("an axis needs at least one value");
  return axis;
}

// The axis values of cell i, first axis slowest (the order sweep_cells numbers the cells in).
std::vector<double> cell_values(const std::vector<SweepAxis>& axes, std::size_t i) {
  std::vector<double> v(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    v[a] = axes[a].values[i % axes[a].values.size()];
    i /= axes[a].values.size();
  }
  return v;
}

std::string cell_label(const std::vector<SweepAxis>& axes, const std::vector<double>& values, std::size_t i, std::size_t n) {
  std::string s = "sweep cell " + std::to_string(i) + " of " + std::to_string(n) + ":";
  for (std::size_t a = 0; a < axes.size(); ++a)
    s += (a ? ", " : " ") + axes[a].name + " = " + nlohmann::json(values[a]).dump();
  return s;
}

// "record_format": the format of trajectory files. Only trajectory studies (and, through their
// cells, sweeps of them) write trajectory files, so "npy" in any other kind is refused, not ignored.
std::string parse_record_format(const JsonCursor& root, const std::string& kind) {
  if (!root.has("record_format")) return "csv";
  const JsonCursor f = root["record_format"];
  check_one_of(f, {"csv", "npy"}, "not a record format; use one of: ");
  if (f.string() == "npy" && kind != "trajectory")
    f.fail("record format \"npy\" is for trajectory files, and " + kind +
           " studies write none (trajectory studies and sweeps of them do)");
  return f.string();
}

// A sweep: its block, then every cell parsed as the study it will run (base + axis values), so a
// bad cell is refused before anything runs; the first cell stands for the base study.
Study parse_sweep(const JsonCursor& root, const std::string& file, const std::string& name, const Limits& limits) {
  const JsonCursor sw = root["sweep"];
  sw.allow_keys({"of", "axes"});
  SweepSpec spec;
  spec.of = sw["of"].string();
  if (spec.of != "trajectory" && spec.of != "convergence" && spec.of != "ensemble")
    sw["of"].fail("a sweep is a grid of \"trajectory\", \"convergence\" or \"ensemble\" runs");
  (void)parse_record_format(root, spec.of);  // here, not in a cell: the message names no cell
  nlohmann::json base = root.json();
  base.erase("sweep");
  base.erase("figures");  // the sweep's figures and claims, checked below
  base.erase("claims");
  base["kind"] = spec.of;
  const JsonCursor axes = sw["axes"];
  if (axes.size() == 0 || axes.size() > 2) axes.fail("a sweep has one or two axes");
  double cells = 1;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    spec.axes.push_back(parse_axis(axes.at(i), base));
    cells *= static_cast<double>(spec.axes.back().values.size());
  }
  check_cells(axes, cells, limits);
  const auto n = static_cast<std::size_t>(cells);
  Study first;
  Workload all;
  for (std::size_t i = 0; i < n; ++i) {
    const auto values = cell_values(spec.axes, i);
    nlohmann::json cell = base;
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      for (const auto& ptr : spec.axes[a].set) cell[nlohmann::json::json_pointer(ptr)] = values[a];
    try {
      Study cs = parse_study(cell, file);
      all += workload(cs);
      if (i == 0) first = std::move(cs);
    } catch (const InputError& e) {
      throw InputError("", std::string(e.what()) + " (in " + cell_label(spec.axes, values, i, n) + ")");
    }
  }
  check_workload(root, all, limits, " over " + std::to_string(n) + " sweep cells");
  first.name = name;
  first.kind = "sweep";
  first.sweep = spec;
  first.raw = root.json();
  first.figures = parse_figures(root, {"sweep", "heatmap"}, labels_of(first.integrators));
  check_sweep_figures(root, spec);
  first.claims = parse_claims(root, "sweep", labels_of(first.integrators));  // on sweep.csv; cells claim nothing
  return first;
}

}  // namespace

Study parse_study(const nlohmann::json& j, const std::string& file) {
  const JsonCursor root(j, file);
  root.allow_keys({"name", "description", "seed", "kind", "system", "initial", "integrators", "observers", "T", "h",
                   "record_every", "reference", "order_tolerance", "plateau", "plugin_paths", "figures", "claims",
                   "impact_map", "ensemble", "sweep", "limits", "check_derivatives", "repeats", "record_format"});
  Study s;
  s.file = file;
  s.raw = j;
  s.limits = parse_limits(root);
  check_array_sizes(root, s.limits);
  s.name = study_name(root, file);
  s.description = root.has("description") ? root["description"].string() : "";
  s.kind = root["kind"].string();
  if (s.kind != "trajectory" && !ladder_kind(s.kind) && s.kind != "ensemble" && s.kind != "sweep")
    root["kind"].fail("unknown study kind: use trajectory, convergence, work_precision, ensemble or sweep");
  if (s.kind == "sweep") return parse_sweep(root, file, s.name, s.limits);

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
  if (ints.size() == 0) ints.fail("a study needs at least one integrator");
  for (std::size_t i = 0; i < ints.size(); ++i) {
    const JsonCursor c = ints.at(i);
    PluginUse u = parse_plugin(c, {"label", "h", "display", "reference"});
    u.label = c.json().is_object() && c.has("label") ? safe_name(c["label"], "label") : u.plugin;
    if (c.json().is_object() && c.has("display")) u.display = c["display"].string();  // a figure's name for it
    if (c.json().is_object() && c.has("reference")) u.reference = c["reference"].boolean();
    if (c.json().is_object() && c.has("h")) {
      if (ladder_kind(s.kind)) c["h"].fail("a per-integrator h is not allowed in " + s.kind + " studies");
      u.h = c["h"].number();
      if (u.h == 0.0) c["h"].fail("h must not be zero");
    }
    for (const auto& other : s.integrators)
      if (other.label == u.label) c.fail("duplicate integrator label \"" + u.label + "\"");
    s.integrators.push_back(u);
  }

  if (root.has("observers")) {
    const JsonCursor obs = root["observers"];
    for (std::size_t i = 0; i < obs.size(); ++i) s.observers.push_back(parse_plugin(obs.at(i), {}));
  } else if (!ladder_kind(s.kind)) {
    for (const char* name : {"energy_error", "constraint_residual"}) {
      PluginUse u;
      u.plugin = name;
      u.where = root.where() + " (default observers)";
      s.observers.push_back(u);
    }
  }

  s.T = root["T"].number();
  if (!(s.T > 0.0)) root["T"].fail("the horizon T must be positive");

  if (s.kind == "ensemble") {
    const JsonCursor e = root["ensemble"];
    e.allow_keys({"size", "seed", "sampler", "quantiles", "write_members"});
    s.ensemble.size = e["size"].integer();
    if (s.ensemble.size < 1) e["size"].fail("an ensemble needs at least one member");
    check_members(e["size"], static_cast<double>(s.ensemble.size), s.limits);
    const long seed = e["seed"].integer();
    if (seed < 0) e["seed"].fail("the seed must be a non-negative integer");
    s.ensemble.seed = static_cast<std::uint64_t>(seed);
    s.ensemble.sampler = parse_plugin(e["sampler"], {});
    if (e.has("quantiles")) {
      s.ensemble.quantiles = e["quantiles"].numbers();
      for (std::size_t i = 0; i < s.ensemble.quantiles.size(); ++i) {
        const double q = s.ensemble.quantiles[i];
        if (q < 0.0 || q > 1.0) e["quantiles"].at(i).fail("a quantile lies in [0, 1]");
        // Two quantiles with one column name would give every ensemble_stats file two columns of one name.
        const std::string suffix = EnsembleStatistics::quantile_suffix(q);
        for (std::size_t k = 0; k < i; ++k)
          if (EnsembleStatistics::quantile_suffix(s.ensemble.quantiles[k]) == suffix)
            e["quantiles"].at(i).fail("duplicate quantile: " + e["quantiles"].at(k).path() + " = " +
                                      nlohmann::json(s.ensemble.quantiles[k]).dump() + " writes the same columns (<column>" +
                                      suffix + ")");
      }
    }
    if (e.has("write_members")) s.ensemble.write_members = e["write_members"].boolean();
  } else if (root.has("ensemble")) {
    root["ensemble"].fail("an \"ensemble\" block needs \"kind\": \"ensemble\"");
  }
  if (root.has("sweep")) root["sweep"].fail("a \"sweep\" block needs \"kind\": \"sweep\"");

  const JsonCursor h = root["h"];
  if (!ladder_kind(s.kind)) {
    s.h = {h.number()};
  } else {
    s.h = h.numbers();
    if (s.h.size() < 2) h.fail("a " + s.kind + " study needs a ladder of at least two step sizes");
  }
  for (std::size_t i = 0; i < s.h.size(); ++i) {
    const JsonCursor hi = !ladder_kind(s.kind) ? h : h.at(i);
    if (s.h[i] == 0.0) hi.fail("h must not be zero");
    if (ladder_kind(s.kind) && s.h[i] < 0.0) hi.fail(s.kind + " step sizes must be positive");
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
  s.record_format = parse_record_format(root, s.kind);

  if (root.has("reference")) {
    const JsonCursor r = root["reference"];
    if (!ladder_kind(s.kind)) r.fail("a reference is only used by convergence and work_precision studies");
    if (r.json().is_string() && r.string() == "exact") {
      s.reference.exact = true;
    } else {
      r.allow_keys({"plugin", "params", "h"});
      s.reference.exact = false;
      s.reference.run = parse_plugin(r, {"h"});
      s.reference.run.label = "reference";
      s.reference.run.h = r["h"].finite_positive();
      check_steps(root["T"], s.T, s.reference.run.h, s.limits);
      steps_for(s.T, s.reference.run.h, r["h"].where());
    }
  }
  if (root.has("repeats")) {
    if (s.kind != "work_precision") root["repeats"].fail("repeats (timed runs) belong to work_precision studies");
    const long r = root["repeats"].integer();
    if (r < 1 || r > 1000) root["repeats"].fail("repeats must lie in [1, 1000]");
    s.repeats = static_cast<int>(r);
  }
  if (root.has("order_tolerance")) s.order_tolerance = root["order_tolerance"].finite_positive();
  if (root.has("plateau")) s.plateau = root["plateau"].finite_positive();
  if (root.has("plugin_paths")) {
    const JsonCursor p = root["plugin_paths"];
    const auto base = std::filesystem::path(file).parent_path();
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
  s.figures = parse_figures(
      root,
      s.kind == "ensemble"      ? std::vector<std::string>{"timeseries", "path", "ensemble", "members", "member_panels", "surface"}
      : s.kind == "convergence" ? std::vector<std::string>{"convergence"}
      : s.kind == "work_precision" ? std::vector<std::string>{"convergence", "work_precision"}
                                : std::vector<std::string>{"timeseries", "path", "summary", "snapshots", "impact_path", "table",
                                                           "snapshot_panels", "overlay", "summary_panels"},
      labels_of(s.integrators));
  if (ladder_kind(s.kind)) check_convergence_figures(root);
  s.claims = parse_claims(root, s.kind, labels_of(s.integrators));
  check_workload(root, workload(s), s.limits);
  return s;
}

}  // namespace dalembert
