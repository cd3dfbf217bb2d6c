#include <algorithm>
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/json_input.hpp>
#include <dalembert/study/study.hpp>
#include <filesystem>
#include <sstream>

namespace dalembert {

namespace {

PluginUse parse_plugin(const JsonCursor& c, std::vector<std::string> extra_keys) {
  std::vector<std::string> keys = {"plugin", "params"};
  keys.insert(keys.end(), extra_keys.begin(), extra_keys.end());
  if (c.json().is_string()) {  // shorthand: "rk4"
    PluginUse u;
    u.plugin = c.string();
    u.where = c.where();
    return u;
  }
  c.allow_keys(keys);
  PluginUse u;
  u.plugin = c["plugin"].string();
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

nlohmann::json parse_figures(const JsonCursor& root, const std::vector<std::string>& types) {
  if (!root.has("figures")) return nlohmann::json::array();
  const JsonCursor f = root["figures"];
  for (std::size_t i = 0; i < f.size(); ++i) {
    const JsonCursor fi = f.at(i);
    fi.allow_keys({"name", "type", "x", "y", "panels", "tasks", "title", "xlabel", "ylabel", "logy", "logx", "abs",
                   "xlim", "ylim", "caption", "value", "label", "series", "band", "outline", "inset", "fit", "times",
                   "radius", "wall_x"});
    (void)fi["name"].string();
    const std::string type = fi["type"].string();
    if (std::find(types.begin(), types.end(), type) == types.end()) {
      std::string list;
      for (const auto& t : types) list += (list.empty() ? "" : ", ") + t;
      fi["type"].fail("this study kind draws figures of type " + list);
    }
  }
  return f.json();
}

}  // namespace

long steps_for(double T, double h, const std::string& where) {
  const double n = T / std::abs(h);
  const long steps = std::lround(n);
  if (steps < 1 || std::abs(n - static_cast<double>(steps)) > 1e-9 * std::max(1.0, n)) {
    const auto num = [](double x) { return nlohmann::json(x).dump(); };  // shortest round-trip form
    throw InputError(where, "T = " + num(T) + " is not a whole number of steps of h = " + num(h) + " (T/h = " + num(n) + ")");
  }
  return steps;
}

Study load_study(const std::string& file) { return parse_study(parse_json_file(file), file); }

Study parse_study(const nlohmann::json& j, const std::string& file) {
  const JsonCursor root(j, file);
  root.allow_keys({"name", "description", "seed", "kind", "system", "initial", "integrators", "observers", "T", "h",
                   "record_every", "reference", "order_tolerance", "plateau", "plugin_paths", "figures", "claims",
                   "impact_map", "ensemble", "sweep"});
  Study s;
  s.file = file;
  s.raw = j;
  s.name = root.has("name") ? root["name"].string()
                            : std::filesystem::path(file.empty() ? "study" : file).stem().string();
  if (s.name.empty() || s.name.find('/') != std::string::npos) root["name"].fail("a study name must be non-empty and contain no '/'");
  s.description = root.has("description") ? root["description"].string() : "";
  s.kind = root["kind"].string();
  if (s.kind != "trajectory" && s.kind != "convergence" && s.kind != "ensemble" && s.kind != "sweep")
    root["kind"].fail("unknown study kind: use trajectory, convergence, ensemble or sweep");
  if (s.kind == "sweep") {
    // A sweep is checked cell by cell when it runs; here its own block and the base study.
    const JsonCursor sw = root["sweep"];
    sw.allow_keys({"of", "axes"});
    s.sweep.of = sw["of"].string();
    if (s.sweep.of != "trajectory" && s.sweep.of != "convergence")
      sw["of"].fail("a sweep is a grid of \"trajectory\" or \"convergence\" runs");
    const JsonCursor axes = sw["axes"];
    if (axes.size() == 0 || axes.size() > 2) axes.fail("a sweep has one or two axes");
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const JsonCursor a = axes.at(i);
      a.allow_keys({"name", "set", "values"});
      SweepAxis axis;
      axis.name = a["name"].string();
      const JsonCursor set = a["set"];
      for (std::size_t k = 0; k < set.size(); ++k) {
        axis.set.push_back(set.at(k).string());
        if (axis.set.back().empty() || axis.set.back()[0] != '/') set.at(k).fail("a JSON pointer starts with '/'");
        try {
          (void)nlohmann::json::json_pointer(axis.set.back());
        } catch (const std::exception& e) {
          set.at(k).fail(std::string("not a JSON pointer: ") + e.what());
        }
      }
      if (axis.set.empty()) set.fail("an axis sets at least one value");
      axis.values = a["values"].numbers();
      if (axis.values.empty()) a["values"].fail("an axis needs at least one value");
      s.sweep.axes.push_back(axis);
    }
    nlohmann::json base = j;
    base.erase("sweep");
    base.erase("figures");  // the sweep's figures, checked below
    base["kind"] = s.sweep.of;
    // Check the base study now, with the first value of every axis, so errors show before running.
    for (const auto& axis : s.sweep.axes)
      for (const auto& ptr : axis.set) base[nlohmann::json::json_pointer(ptr)] = axis.values.front();
    Study first = parse_study(base, file);
    first.kind = "sweep";
    first.sweep = s.sweep;
    first.raw = j;
    first.figures = parse_figures(root, {"sweep", "heatmap"});
    return first;
  }

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
    PluginUse u = parse_plugin(c, {"label", "h"});
    u.label = c.json().is_object() && c.has("label") ? c["label"].string() : u.plugin;
    if (u.label.empty() || u.label.find_first_of("/\\ ") != std::string::npos)
      (c.has("label") ? c["label"] : c).fail("an integrator label must be non-empty, without spaces or slashes");
    if (c.json().is_object() && c.has("h")) {
      if (s.kind == "convergence") c["h"].fail("a per-integrator h is not allowed in convergence studies");
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
  } else if (s.kind != "convergence") {
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
    const long seed = e["seed"].integer();
    if (seed < 0) e["seed"].fail("the seed must be a non-negative integer");
    s.ensemble.seed = static_cast<std::uint64_t>(seed);
    s.ensemble.sampler = parse_plugin(e["sampler"], {});
    if (e.has("quantiles")) {
      s.ensemble.quantiles = e["quantiles"].numbers();
      for (std::size_t i = 0; i < s.ensemble.quantiles.size(); ++i)
        if (s.ensemble.quantiles[i] < 0.0 || s.ensemble.quantiles[i] > 1.0)
          e["quantiles"].at(i).fail("a quantile lies in [0, 1]");
    }
    if (e.has("write_members")) s.ensemble.write_members = e["write_members"].boolean();
  } else if (root.has("ensemble")) {
    root["ensemble"].fail("an \"ensemble\" block needs \"kind\": \"ensemble\"");
  }
  if (root.has("sweep")) root["sweep"].fail("a \"sweep\" block needs \"kind\": \"sweep\"");

  const JsonCursor h = root["h"];
  if (s.kind != "convergence") {
    s.h = {h.number()};
  } else {
    s.h = h.numbers();
    if (s.h.size() < 2) h.fail("a convergence study needs a ladder of at least two step sizes");
  }
  for (std::size_t i = 0; i < s.h.size(); ++i) {
    const JsonCursor hi = s.kind != "convergence" ? h : h.at(i);
    if (s.h[i] == 0.0) hi.fail("h must not be zero");
    if (s.kind == "convergence" && s.h[i] < 0.0) hi.fail("convergence step sizes must be positive");
    steps_for(s.T, s.h[i], hi.where());
  }
  for (std::size_t i = 0; i < s.integrators.size(); ++i)
    if (s.integrators[i].h != 0.0) steps_for(s.T, s.integrators[i].h, ints.at(i)["h"].where());

  if (root.has("record_every")) {
    s.record_every = root["record_every"].integer();
    if (s.record_every < 1) root["record_every"].fail("record_every must be at least 1");
  }

  if (root.has("reference")) {
    const JsonCursor r = root["reference"];
    if (s.kind != "convergence") r.fail("a reference is only used by convergence studies");
    if (r.json().is_string() && r.string() == "exact") {
      s.reference.exact = true;
    } else {
      r.allow_keys({"plugin", "params", "h"});
      s.reference.exact = false;
      s.reference.run = parse_plugin(r, {"h"});
      s.reference.run.label = "reference";
      s.reference.run.h = r["h"].finite_positive();
      steps_for(s.T, s.reference.run.h, r["h"].where());
    }
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
  s.figures = parse_figures(root, s.kind == "ensemble" ? std::vector<std::string>{"timeseries", "path", "ensemble", "members"}
                                  : s.kind == "convergence" ? std::vector<std::string>{"convergence"}
                                                            : std::vector<std::string>{"timeseries", "path", "summary", "snapshots"});
  return s;
}

}  // namespace dalembert
