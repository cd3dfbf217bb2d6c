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
                   "impact_map"});
  Study s;
  s.file = file;
  s.raw = j;
  s.name = root.has("name") ? root["name"].string()
                            : std::filesystem::path(file.empty() ? "study" : file).stem().string();
  if (s.name.empty() || s.name.find('/') != std::string::npos) root["name"].fail("a study name must be non-empty and contain no '/'");
  s.description = root.has("description") ? root["description"].string() : "";
  s.kind = root["kind"].string();
  if (s.kind != "trajectory" && s.kind != "convergence")
    root["kind"].fail("unknown study kind; this version runs \"trajectory\" and \"convergence\"");

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
      if (s.kind != "trajectory") c["h"].fail("a per-integrator h is only allowed in trajectory studies");
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
  } else if (s.kind == "trajectory") {
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
  if (s.kind == "trajectory") {
    s.h = {h.number()};
  } else {
    s.h = h.numbers();
    if (s.h.size() < 2) h.fail("a convergence study needs a ladder of at least two step sizes");
  }
  for (std::size_t i = 0; i < s.h.size(); ++i) {
    const JsonCursor hi = s.kind == "trajectory" ? h : h.at(i);
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
      s.plugin_paths.push_back(path.string());
    }
  }
  if (root.has("figures")) {
    const JsonCursor f = root["figures"];
    for (std::size_t i = 0; i < f.size(); ++i) {
      const JsonCursor fi = f.at(i);
      fi.allow_keys({"name", "type", "x", "y", "panels", "tasks", "title", "xlabel", "ylabel", "logy", "abs", "xlim", "ylim",
                     "caption"});
      const std::string name = fi["name"].string();
      const std::string type = fi["type"].string();
      if (type != "timeseries" && type != "convergence" && type != "path")
        fi["type"].fail("figure type must be timeseries, convergence or path");
    }
    s.figures = f.json();
  }
  return s;
}

}  // namespace dalembert
