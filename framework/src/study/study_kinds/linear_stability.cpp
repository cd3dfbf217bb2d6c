// Linear-stability studies (issue 28 item 4): the eigenvalues of the exact linearisation of a
// system's reduced dynamics along its family of steady motions (core/linearizable.hpp: the bicycle
// or the rolling disk upright at speed v), swept over the family's parameter, tracked as branches,
// and the parameter values where stability changes located to a few ulps
// (study/eigenvalue_branches.hpp). No integrator runs: the study is the system's.
//
//   "parameter": {"from": 0, "to": 10, "steps": 1000, "values": [0.5, ...]}
//       the grid: from + (to − from) k / steps, k = 0 … steps, and the listed values (tabulated in the
//       report; any grid value may be claimed);
//   "family": "upright"      optional: the name of the system's family, checked.
// Output: eigenvalues.csv (value, branch, real, imag: every branch at every value, the structural
// zeros included as the last branches), the manifest's "linear_stability" (the family, the
// structural zeros, the critical values with their brackets, the stable ranges, the eigenvalues at
// the listed values), a report section, and figure type "eigenvalues" (Meijaard et al. 2007, Fig. 3).
// Claim quantities:
//   {"critical": TYPE [, "index": k | "near": x] [, "field": F]}  TYPE: real_crossing,
//       complex_crossing, collision or any; F: value (default), real, imag, abs_imag (of the branch at
//       the event; a collision's double root), bracket, residual;
//   {"eigenvalue": "real" | "imag" | "abs" | "abs_imag", "at": x, "branch": b | "nearest": [re, im]}
//       a row of eigenvalues.csv at grid value x;
//   {"fitted_order": LABEL}  the order of a discrete step map's eigenvalues (below);
//   {"discrete_eigenvalue": "real" | "imag" | "abs" | "abs_imag" | "error", "label": L, "h": h,
//    "branch": b}  a row of discrete_eigenvalues.csv.
//
// Discrete step maps (optional): with "discrete": {"at": x, "h": [h0, h1, ...]} and "integrators",
// each integrator's one-step map Φ_h about the steady motion at x is differentiated in the same
// reduced variables — central differences through Linearizable::perturbed_state, ε = 1e-6 (the
// plugins are black boxes on doubles) — and the eigenvalues μ of its Jacobian give log(μ)/h, which
// for a method of order p tend to the continuous eigenvalues as h^p (Hairer, Lubich & Wanner,
// Geometric Numerical Integration, on the modified equation: Φ_h is the exact flow of a field
// O(h^p) away, so its linearisation is exp(h (J + O(h^p)))). discrete_eigenvalues.csv (label, h,
// branch, real, imag, error), the manifest's "convergence" (the fitted order of the largest error
// over the branches that are not structural zeros, audited against the integrator's declared order
// as a convergence study's), a report table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/core/linearizable.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/assembly.hpp>
#include <dalembert/study/order_entry.hpp>
#include <dalembert/study/crash_report.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/eigenvalue_branches.hpp>
#include <dalembert/study/names.hpp>
#include <dalembert/study/study_kind.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/study/table_format.hpp>
#include <functional>
#include <limits>

using nlohmann::json;
namespace fs = std::filesystem;

namespace dalembert {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<std::string> kTypes = {"real_crossing", "complex_crossing", "collision", "any"};
const std::vector<std::string> kCriticalFields = {"value", "real", "imag", "abs_imag", "bracket", "residual"};
const std::vector<std::string> kParts = {"real", "imag", "abs", "abs_imag"};
const std::vector<std::string> kDiscreteParts = {"real", "imag", "abs", "abs_imag", "error"};
const std::vector<std::string> kColumns = {"value", "branch", "real", "imag"};
const std::vector<std::string> kDiscreteColumns = {"label", "h", "branch", "real", "imag", "error"};
constexpr double kDifferenceStep = 1e-6;  // central differences of a step map: ~1e-10 truncation and round-off
// Eigenvalue errors below it are taken for the differences' noise, masked from the order fit (with
// y* = 0 in the minimal variables, as for the disk and the bicycle, that noise is ~1e-13).
constexpr double kDiscretePlateau = 1e-11;

std::string num(double x) { return number_text(x, "%.12g"); }

// Two parameter values that name the same grid point.
bool same_value(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

/// The parameter grid of a study: from + (to − from) k / steps and the listed values, sorted.
struct Grid {
  double from = 0.0, to = 0.0;
  long steps = 0;
  std::vector<double> listed, values;
};

Grid parse_grid(const JsonCursor& p, const Limits& limits) {
  p.allow_keys({"from", "to", "steps", "values"});
  Grid g;
  g.from = p["from"].number();
  g.to = p["to"].number();
  if (!(g.to > g.from)) p["to"].fail("the parameter range is empty: \"to\" must exceed \"from\" = " + num(g.from));
  if (!std::isfinite(g.to - g.from)) p["to"].fail("the parameter range is not finite");
  g.steps = p["steps"].integer();
  if (g.steps < 1) p["steps"].fail("the grid needs at least one step");
  if (static_cast<double>(g.steps) > limits.tasks)
    p["steps"].fail("a linearisation per value: " + std::to_string(g.steps + 1) + " exceed the limit of " + num(limits.tasks) +
                    " tasks; set \"limits\": {\"tasks\": " + std::to_string(g.steps + 1) + "} in the study if you mean it");
  if (p.has("values")) g.listed = p["values"].numbers();
  for (long k = 0; k <= g.steps; ++k) g.values.push_back(g.from + (g.to - g.from) * static_cast<double>(k) / static_cast<double>(g.steps));
  g.values.back() = g.to;
  for (double x : g.listed)
    if (std::none_of(g.values.begin(), g.values.end(), [&](double y) { return same_value(y, x); })) g.values.push_back(x);
  std::sort(g.values.begin(), g.values.end());
  return g;
}

Grid grid_of(const Study& st) { return parse_grid(JsonCursor(st.raw, st.file)["parameter"], st.limits); }

/// The parameter value of the discrete step maps ("discrete": {"at", "h"}); NaN without them.
double discrete_at(const Study& st) {
  return st.raw.contains("discrete") ? st.raw["discrete"]["at"].get<double>() : kNaN;
}

/// The reduced variables y = (δq_m, δq̇_m, δq̇_s) of a state, as values (a difference of two gives δy).
Vec reduced_of(const State& s, const ReducedVariables& vars) {
  const std::size_t m = vars.minimal.size(), k = vars.speeds.size();
  Vec y(static_cast<Eigen::Index>(2 * m + k));
  for (std::size_t i = 0; i < m; ++i) {
    y[static_cast<Eigen::Index>(i)] = s.q[vars.minimal[i]];
    y[static_cast<Eigen::Index>(m + i)] = s.v[vars.minimal[i]];
  }
  for (std::size_t i = 0; i < k; ++i) y[static_cast<Eigen::Index>(2 * m + i)] = s.v[vars.speeds[i]];
  return y;
}

/// log(μ)/h of the Jacobian P of integrator's one-step map Φ_h about the steady motion s0, in the
/// reduced variables: column j = (y(Φ_h(s0 + ε e_j)) − y(Φ_h(s0 − ε e_j))) / 2ε.
Spectrum discrete_spectrum(const Linearizable& lin, Integrator& integrator, const State& s0, const ReducedVariables& vars,
                           Eigen::Index d, double h, std::atomic<long>* steps) {
  Mat P(d, d);
  for (Eigen::Index j = 0; j < d; ++j) {
    Vec y[2];
    for (int side = 0; side < 2; ++side) {
      Vec dy = Vec::Zero(d);
      dy[j] = side == 0 ? kDifferenceStep : -kDifferenceStep;
      State s;
      lin.perturbed_state(s0, vars, dy, s);
      integrator.begin(s, h);
      integrator.advance(s, h);
      y[side] = reduced_of(s, vars);
      if (steps) ++*steps;
    }
    P.col(j) = (y[0] - y[1]) / (2.0 * kDifferenceStep);
  }
  const Spectrum mu = deflated_eigenvalues(P, 0);
  Spectrum out;
  for (const auto& m : mu) out.push_back(std::log(m) / h);
  return out;
}

// The quantities of this kind's claims, each visited (ratios unfolded).
void each_own_quantity(const JsonCursor& root, const std::function<void(const JsonCursor&)>& f) {
  if (!root.has("claims") || !root["claims"].has("checks")) return;
  const std::function<void(const JsonCursor&)> visit = [&](const JsonCursor& q) {
    if (q.has("ratio")) visit(q["ratio"].at(0)), visit(q["ratio"].at(1));
    else if (q.has("critical") || q.has("eigenvalue") || q.has("discrete_eigenvalue")) f(q);
  };
  const JsonCursor checks = root["claims"]["checks"];
  for (std::size_t i = 0; i < checks.size(); ++i) visit(checks.at(i)["quantity"]);
}

json family_json(const SteadyMotionFamily& f, const Layout& layout, const Linearisation& lin) {
  auto names = [&](const std::vector<int>& idx, const std::vector<std::string>& from) {
    json out = json::array();
    for (int i : idx) out.push_back(i >= 0 && i < static_cast<int>(from.size()) ? from[static_cast<std::size_t>(i)] : std::to_string(i));
    return out;
  };
  return {{"name", f.name},
          {"parameter", f.parameter},
          {"description", f.description},
          {"minimal", names(f.variables.minimal, layout.q)},
          {"dependent", names(f.variables.dependent, layout.q)},
          {"speeds", names(f.variables.speeds, layout.v)},
          {"held", names(f.variables.held, layout.v)},
          {"variables", lin.names}};
}

json complex_json(std::complex<double> z) { return json::array({z.real(), z.imag()}); }

std::string stability_text(int before, int after) {
  if (before == after) return before == 1 ? "stable on both sides" : "unstable on both sides";
  return before == 1 ? "stable -> unstable" : "unstable -> stable";
}

// The family's steady motion at parameter x and its linearisation, errors naming system and value.
class FamilySpectrum {
 public:
  FamilySpectrum(const System& system, const Linearizable& lin) : system_(system), lin_(lin), family_(lin.steady_family()) {}
  Linearisation at(double x) const {
    State s;
    lin_.steady_state(x, s);
    Linearisation out;
    try {
      lin_.linearise(s, family_.variables, out);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error("system '" + system_.name() + "': linearising family '" + family_.name + "' at " + family_.parameter + " = " +
                  num(x) + ": " + e.what());
    }
    if (!out.state.allFinite())
      throw Error("system '" + system_.name() + "': the linearisation of family '" + family_.name + "' at " +
                  family_.parameter + " = " + num(x) + " has entries that are not finite");
    return out;
  }
  const SteadyMotionFamily& family() const { return family_; }

 private:
  const System& system_;
  const Linearizable& lin_;
  SteadyMotionFamily family_;
};

class LinearStabilityKind : public StudyKind {
 public:
  std::string name() const override { return "linear_stability"; }
  std::vector<KindKey> keys() const override {
    return {{"parameter", "\"parameter\" (the grid of a steady-motion family) belongs to linear_stability studies"},
            {"family", "\"family\" (a system's family of steady motions) belongs to linear_stability studies"},
            {"discrete", "\"discrete\" (the eigenvalues of discrete step maps about a steady motion) belongs to "
                         "linear_stability studies"}};
  }
  bool default_observers() const override { return false; }
  bool ladder() const override { return true; }  // the discrete step maps' "h" (no per-integrator h)
  std::vector<std::string> figure_types() const override { return {"eigenvalues"}; }
  std::vector<std::string> claim_quantities() const override {
    return {"critical", "eigenvalue", "discrete_eigenvalue", "fitted_order"};
  }

  Study parse(const JsonCursor& root, Study s) const override {
    for (const char* k : {"initial", "observers", "T", "h", "record_every", "impact_map", "record_format"})
      if (root.has(k))
        root[k].fail(std::string("a linear_stability study starts from the system's steady motions and records no "
                                 "trajectory: \"") + k + "\" has no use here");
    if (root.has("integrators") != root.has("discrete"))
      (root.has("integrators") ? root["integrators"] : root["discrete"])
          .fail("a linear_stability study runs integrators only for their discrete step maps: \"integrators\" and "
                "\"discrete\": {\"at\": value, \"h\": [step sizes]} go together");
    for (const StudyKind* other : study_kinds())
      if (other != this)
        for (const auto& key : other->keys())
          if (root.has(key.key)) root[key.key].fail(key.elsewhere);
    s.system = parse_plugin(root["system"], {});
    if (root.has("family")) (void)safe_name(root["family"], "family name");
    const Grid grid = parse_grid(root["parameter"], s.limits);
    if (root.has("discrete")) {
      const JsonCursor dsc = root["discrete"];
      dsc.allow_keys({"at", "h"});
      if (!std::isfinite(dsc["at"].number())) dsc["at"].fail("a parameter value is finite");
      s.h = dsc["h"].numbers();
      if (s.h.size() < 2) dsc["h"].fail("the discrete step maps need a ladder of at least two step sizes (an order is fitted)");
      for (std::size_t i = 0; i < s.h.size(); ++i)
        if (!(s.h[i] > 0.0)) dsc["h"].at(i).fail("a step size is positive");
      parse_integrators(root["integrators"], s, *this);
    }
    if (root.has("check_derivatives")) s.check_derivatives = root["check_derivatives"].boolean();
    parse_plugin_paths(root, s);
    s.figures = parse_figures(root, figure_types(), labels_of(s.integrators));
    s.claims = parse_claims(root, *this, labels_of(s.integrators));
    each_own_quantity(root, [&](const JsonCursor& q) {
      if (q.has("discrete_eigenvalue")) {
        const auto labels = labels_of(s.integrators);
        if (std::find(labels.begin(), labels.end(), q["label"].string()) == labels.end())
          q["label"].fail("no integrator has this label (labels: " + joined(labels) + ")");
        const double h = q["h"].number();
        if (std::none_of(s.h.begin(), s.h.end(), [&](double x) { return same_value(x, h); }))
          q["h"].fail("not a step size of \"discrete\"/\"h\": " + json(s.h).dump());
        return;
      }
      if (!q.has("eigenvalue")) return;
      const double at = q["at"].number();
      if (std::none_of(grid.values.begin(), grid.values.end(), [&](double x) { return same_value(x, at); }))
        q["at"].fail("not a value of the parameter grid (from " + num(grid.from) + " to " + num(grid.to) + " in " +
                     std::to_string(grid.steps) + " steps, and the listed values): add it to \"parameter\"/\"values\"");
    });
    check_workload(root, workload(s), s.limits);
    return s;
  }

  void check_claim_quantity(const JsonCursor& q, const std::string& which) const override {
    if (which == "critical") {
      q.allow_keys({"critical", "index", "near", "field"});
      check_one_of(q["critical"], kTypes, "not a kind of critical value; use one of: ");
      if (q.has("index") && q.has("near")) q["near"].fail("a critical value is chosen by \"index\" or \"near\", not both");
      if (q.has("index") && q["index"].integer() < 0) q["index"].fail("an index is >= 0");
      if (q.has("near")) (void)q["near"].number();
      if (q.has("field")) check_one_of(q["field"], kCriticalFields, "not a field of a critical value; use one of: ");
      return;
    }
    if (which == "discrete_eigenvalue") {
      q.allow_keys({"discrete_eigenvalue", "label", "h", "branch"});
      check_one_of(q["discrete_eigenvalue"], kDiscreteParts, "not a part of a discrete eigenvalue; use one of: ");
      (void)q["label"].string();
      (void)q["h"].number();
      if (q["branch"].integer() < 0) q["branch"].fail("a branch number is >= 0");
      return;
    }
    q.allow_keys({"eigenvalue", "at", "branch", "nearest"});
    check_one_of(q["eigenvalue"], kParts, "not a part of an eigenvalue; use one of: ");
    (void)q["at"].number();
    if (q.has("branch") == q.has("nearest"))
      q.fail("an eigenvalue is chosen by \"branch\" (its number in eigenvalues.csv) or \"nearest\": [re, im], one of them");
    if (q.has("branch") && q["branch"].integer() < 0) q["branch"].fail("a branch number is >= 0");
    if (q.has("nearest") && q["nearest"].numbers().size() != 2) q["nearest"].fail("\"nearest\" is [re, im]");
  }

  Workload workload(const Study& s) const override {
    Workload w;
    w.tasks = static_cast<double>(grid_of(s).values.size() + s.integrators.size() * s.h.size());  // a linearisation per value
    w.rows = w.tasks;
    w.bytes = 8.0 * 4.0 * w.rows;
    return w;
  }

  // The plan: the system bound, its family, the steady state at the first value checked (on the
  // constraints, derivatives) and linearised once, the claims' branches against its dimension.
  StudyPlan make_plan(const Study& st) const override {
    StudyPlan plan;
    plan.registry = study_registry(st);
    const Registry& reg = *plan.registry;
    probe_study_plugins(reg, {&st});
    const CrashContext crash((st.file.empty() ? st.name : st.file) + ": checking the study before the run, with system '" +
                             st.system.plugin + "' " + json_excerpt(st.system.params, 300) + ",");
    const json params = reg.resolve(PluginKind::System, st.system.plugin, st.system.params, st.system.where).to_json();
    plan.system = reg.make_system(st.system.plugin, st.system.params, st.system.where);
    const auto* lin = dynamic_cast<const Linearizable*>(plan.system.get());
    if (!lin)
      throw InputError(st.system.where, "system '" + st.system.plugin +
                                            "' declares no family of steady motions (model Linearizable): a model "
                                            "declares one with steady_family() and steady_state() (README, \"The "
                                            "linear_stability study kind\")");
    const FamilySpectrum spectrum(*plan.system, *lin);
    const SteadyMotionFamily& family = spectrum.family();
    if (st.raw.contains("family") && st.raw["family"] != family.name)
      throw InputError(st.where("/family"), "= \"" + st.raw["family"].get<std::string>() + "\": system '" + st.system.plugin +
                                                "' declares the family \"" + family.name + "\"");
    const Grid grid = grid_of(st);
    lin->steady_state(grid.values.front(), plan.initial);
    const double residual = plan.system->constraint_residual(plan.initial);
    if (!(residual <= constraint_tolerance(plan.initial)))
      throw InputError(st.system.where, "system '" + st.system.plugin + "': its steady motion at " + family.parameter + " = " +
                                            num(grid.values.front()) + " violates its constraints: |A(q)v| = " + num(residual));
    if (st.check_derivatives) check_system_derivatives(st, *plan.system, plan.initial);
    const Linearisation first = spectrum.at(grid.values.front());
    const long dimension = first.state.rows();
    each_own_quantity(JsonCursor(st.raw, st.file), [&](const JsonCursor& q) {
      if (q.has("branch") && q["branch"].integer() >= dimension)
        q["branch"].fail("the linearisation of family \"" + family.name + "\" has " + std::to_string(dimension) +
                         " eigenvalues: branches 0 to " + std::to_string(dimension - 1));
    });
    json& run = plan.study_run;
    run = {{"name", st.name},
           {"kind", st.kind},
           {"description", st.description},
           {"system", {{"plugin", st.system.plugin}, {"params", params}}},
           {"family", family_json(family, plan.system->layout(), first)},
           {"parameter", {{"from", grid.from}, {"to", grid.to}, {"steps", grid.steps}, {"values", grid.listed}}},
           {"check_derivatives", st.check_derivatives},
           {"figures", st.figures},
           {"plugin_paths", st.plugin_paths}};
    if (!st.integrators.empty()) {
      // The discrete step maps: each integrator bound to the system (a refusal names its JSON path),
      // one task per integrator and step size.
      json integrators = json::array();
      for (std::size_t i = 0; i < st.integrators.size(); ++i) {
        const PluginUse& u = st.integrators[i];
        json ij = plan_bound_plugin(plan, PluginKind::Integrator, u);
        const Traits traits = located(u.where, [&] { return assemble_integrator(reg, u, *plan.system)->traits(); });
        plan.traits.push_back(traits);
        ij = {{"label", u.label}, {"plugin", u.plugin}, {"params", ij["params"]},
              {"traits", {{"order", traits.order}, {"symmetric", traits.symmetric}, {"explicit", traits.explicit_method},
                          {"preserves", traits.preserves}}}};
        if (!u.display.empty()) ij["display"] = u.display;
        integrators.push_back(ij);
        for (double h : st.h) plan.tasks.push_back({i, u.label, h, 2 * dimension, ""});
      }
      run["integrators"] = integrators;
      run["discrete"] = {{"at", discrete_at(st)}, {"h", st.h}};
      run["order_tolerance"] = st.order_tolerance;
      run["plateau"] = kDiscretePlateau;
    }
    if (st.raw.contains("claims")) run["claims"] = st.raw["claims"];
    return plan;
  }

  // A task: one integrator's step map at one h, differentiated about the steady motion at "at".
  void run_task(const RunUnit& unit, const Task& task, const fs::path&, TaskOutcome& out,
                std::atomic<long>* steps) const override {
    const Study& st = unit.study;
    Assembly a(*unit.plan.registry, st, st.integrators[task.integrator], {false, false});
    const auto& lin = dynamic_cast<const Linearizable&>(a.system());
    const SteadyMotionFamily family = lin.steady_family();
    State s0;
    lin.steady_state(discrete_at(st), s0);
    Linearisation L;
    lin.linearise(s0, family.variables, L);
    const Spectrum ev = discrete_spectrum(lin, a.integrator(), s0, family.variables, L.state.rows(), task.h, steps);
    for (std::size_t k = 0; k < ev.size(); ++k) {
      out.summary.emplace_back("re_" + std::to_string(k), ev[k].real());
      out.summary.emplace_back("im_" + std::to_string(k), ev[k].imag());
    }
    out.final = s0;
  }

  // The sweep, the branches, the critical values and the files: computed here, on the rank that
  // writes the folder (a linearisation is microseconds to a millisecond; the study has no tasks).
  void reduce(Reduction& rd) const override {
    const Study& st = rd.unit.study;
    const System& system = *rd.unit.plan.system;
    const auto& lin = dynamic_cast<const Linearizable&>(system);
    const FamilySpectrum family(system, lin);
    const Grid grid = grid_of(st);
    // The structural zeros: the nullity of J at every value of the grid.
    std::vector<Linearisation> at;
    int k = std::numeric_limits<int>::max();
    double coupling = 0.0, steady = 0.0, holonomic = 0.0;
    for (double x : grid.values) {
      at.push_back(family.at(x));
      k = std::min(k, nullity(at.back().state));
      coupling = std::max(coupling, at.back().held_coupling);
      steady = std::max(steady, at.back().steady_residual);
      holonomic = std::max(holonomic, at.back().holonomic_residual);
    }
    const int d = static_cast<int>(at.front().state.rows());
    std::size_t next = 0;  // the tracker asks for the grid's values in order: reuse them
    const SpectrumAt spectrum = [&](double x) {
      if (next < grid.values.size() && grid.values[next] == x) return deflated_eigenvalues(at[next++].state, k);
      return deflated_eigenvalues(family.at(x).state, k);
    };
    const EigenvalueBranches branches = track_branches(grid.values, spectrum);
    const std::vector<CriticalValue> critical = critical_values(branches, spectrum);
    const auto ranges = stable_ranges(branches, critical);

    // eigenvalues.csv: every branch at every value, the structural zeros last.
    const auto writer = table_format("csv").writer(rd.dir / "eigenvalues.csv", kColumns, grid.values.size() * std::size_t(d));
    for (std::size_t i = 0; i < grid.values.size(); ++i)
      for (int b = 0; b < d; ++b) {
        const std::complex<double> z = b < branches.count() ? branches.at[i][static_cast<std::size_t>(b)] : 0.0;
        const double row[4] = {grid.values[i], double(b), z.real(), z.imag()};
        writer->row(row);
      }
    writer->close();
    rd.files.push_back({{"path", "eigenvalues.csv"}, {"kind", "eigenvalues"}, {"columns", kColumns}, {"format", "csv"}});

    json crit = json::array();
    for (const auto& c : critical)
      crit.push_back({{"type", c.type},
                      {"value", c.value},
                      {"bracket", c.bracket},
                      {"residual", c.residual},
                      {"branches", c.branches},
                      {"eigenvalue", complex_json(c.eigenvalue)},
                      {"stable_before", c.stable_before == 1},
                      {"stable_after", c.stable_after == 1},
                      {"stability", stability_text(c.stable_before, c.stable_after)},
                      {"evaluations", c.evaluations}});
    json table = json::array();
    for (double x : grid.listed)
      for (std::size_t i = 0; i < grid.values.size(); ++i)
        if (same_value(grid.values[i], x)) {
          json ev = json::array();
          for (const auto& z : branches.at[i]) ev.push_back(complex_json(z));
          table.push_back({{"value", grid.values[i]}, {"eigenvalues", ev}});
          break;
        }
    json stable = json::array();
    for (const auto& [lo, hi] : ranges) stable.push_back(json::array({lo, hi}));
    rd.manifest["linear_stability"] = {{"family", rd.unit.plan.study_run["family"]},
                                       {"values", grid.values.size()},
                                       {"dimension", d},
                                       {"structural_zeros", d - branches.count()},
                                       {"max_held_coupling", coupling},
                                       {"max_steady_residual", steady},
                                       {"max_holonomic_residual", holonomic},
                                       {"critical", crit},
                                       {"stable_ranges", stable},
                                       {"at_listed_values", table}};
    if (!st.integrators.empty()) discrete(rd, spectrum, branches, d - branches.count());
  }

  // The discrete step maps' eigenvalues matched to the continuous ones at "at" (the structural
  // zeros included as exact zeros), their errors, the fitted orders (manifest "convergence", as a
  // convergence study writes it: the order audit and "fitted_order" claims read it).
  static void discrete(Reduction& rd, const SpectrumAt& spectrum, const EigenvalueBranches& branches, int zeros) {
    const Study& st = rd.unit.study;
    const double at = discrete_at(st);
    // The continuous spectrum at "at", in branch order: the grid's branches interpolated and matched.
    Spectrum continuous = spectrum(at);
    {
      std::size_t i = 0;
      while (i + 2 < branches.grid.size() && branches.grid[i + 1] < at) ++i;
      const double a = branches.grid[i], b = branches.grid[i + 1];
      Spectrum predicted(branches.at[i].size());
      for (std::size_t k = 0; k < predicted.size(); ++k)
        predicted[k] = branches.at[i][k] + (at - a) / (b - a) * (branches.at[i + 1][k] - branches.at[i][k]);
      const std::vector<int> perm = match_branches(predicted, continuous);
      Spectrum ordered(perm.size());
      for (std::size_t k = 0; k < perm.size(); ++k) ordered[k] = continuous[static_cast<std::size_t>(perm[k])];
      continuous = ordered;
    }
    for (int z = 0; z < zeros; ++z) continuous.emplace_back(0.0, 0.0);
    CsvWriter csv(rd.dir / "discrete_eigenvalues.csv", kDiscreteColumns);
    json conv = json::array();
    for (std::size_t i = 0; i < st.integrators.size(); ++i) {
      std::vector<double> hs, errs;
      json rows = json::array();
      for (std::size_t k = 0; k < rd.unit.listed; ++k) {
        const Task& t = rd.unit.tasks[k];
        if (t.integrator != i) continue;
        Spectrum discrete_ev;
        for (std::size_t j = 0; j + 1 < rd.results[k].summary.size(); j += 2)
          discrete_ev.emplace_back(rd.results[k].summary[j].second, rd.results[k].summary[j + 1].second);
        const std::vector<int> perm = match_branches(continuous, discrete_ev);
        double worst = 0.0;
        for (std::size_t b = 0; b < continuous.size(); ++b) {
          const std::complex<double> z = discrete_ev[static_cast<std::size_t>(perm[b])];
          const double e = std::abs(z - continuous[b]);
          if (static_cast<int>(b) < branches.count()) worst = std::max(worst, e);
          csv.row({st.integrators[i].label}, {t.h, double(b), z.real(), z.imag(), e});
        }
        hs.push_back(t.h);
        errs.push_back(worst);
        rows.push_back({{"h", t.h}, {"eigenvalue_error", worst}});
      }
      conv.push_back(order_entry(st.integrators[i].label, rd.unit.plan.traits[i].order, hs, errs, kDiscretePlateau,
                                 st.order_tolerance, std::move(rows)));
    }
    csv.close();
    json cont = json::array();
    for (const auto& z : continuous) cont.push_back(complex_json(z));
    rd.manifest["linear_stability"]["discrete"] = {{"at", at}, {"continuous", cont}};
    rd.manifest["convergence"] = conv;
    rd.files.push_back({{"path", "discrete_eigenvalues.csv"}, {"kind", "discrete_eigenvalues"}, {"columns", kDiscreteColumns},
                        {"format", "csv"}});
  }

  ClaimValue claim_value(const json& q, const json& m, const fs::path& folder) const override {
    ClaimValue v;
    const json& ls = m.contains("linear_stability") ? m["linear_stability"] : json();
    if (q.contains("critical")) return critical_value(q, ls);
    if (q.contains("discrete_eigenvalue")) return discrete_value(q, folder);
    const std::string part = q["eigenvalue"];
    const double at = q["at"].get<double>();
    const Table t = table_format_of(folder / "eigenvalues.csv").read(folder / "eigenvalues.csv");
    const auto col = [&](const std::string& n) -> const std::vector<double>& {
      for (std::size_t i = 0; i < t.names.size(); ++i)
        if (t.names[i] == n) return t.columns[i];
      throw Error("eigenvalues.csv has no column " + n);
    };
    const auto &value = col("value"), &branch = col("branch"), &re = col("real"), &im = col("imag");
    std::size_t best = value.size();
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!same_value(value[i], at)) continue;
      if (q.contains("branch")) {
        if (branch[i] == q["branch"].get<double>()) best = i;
      } else {
        const std::complex<double> want(q["nearest"][0].get<double>(), q["nearest"][1].get<double>());
        if (best == value.size() || std::abs(std::complex<double>(re[i], im[i]) - want) <
                                        std::abs(std::complex<double>(re[best], im[best]) - want))
          best = i;
      }
    }
    v.what = part + " part of the eigenvalue " +
             (q.contains("branch") ? "of branch " + q["branch"].dump() : "nearest " + q["nearest"].dump()) + " at " +
             num(at);
    if (best == value.size()) {
      v.why = "eigenvalues.csv has no such row at " + num(at);
      return v;
    }
    const std::complex<double> z(re[best], im[best]);
    v.x = part == "real" ? z.real() : part == "imag" ? z.imag() : part == "abs" ? std::abs(z) : std::abs(z.imag());
    return v;
  }

  void report(std::ostream& out, const json& m) const override {
    const json& ls = report_get(m, "linear_stability");
    const json& fam = report_get(ls, "family");
    out << "## Linear stability\n\n";
    out << "Family `" << report_cell(report_get(fam, "name")) << "` of system `"
        << report_cell(report_get(report_get(report_get(m, "study"), "system"), "plugin")) << "`: "
        << report_cell(report_get(fam, "description")) << ". Parameter " << report_cell(report_get(fam, "parameter"))
        << ": " << report_cell(report_get(ls, "values")) << " values. Linearised in (";
    std::string vars;
    for (const auto& n : report_get(fam, "variables")) vars += (vars.empty() ? "" : ", ") + report_cell(n);
    out << vars << "): " << report_cell(report_get(ls, "dimension")) << " eigenvalues, of which "
        << report_cell(report_get(ls, "structural_zeros"))
        << " are structural zeros (at every value; deflated). Largest coupling to the held speeds "
        << report_cell(report_get(ls, "max_held_coupling")) << "; largest |q''| at the steady motions "
        << report_cell(report_get(ls, "max_steady_residual")) << ".\n\n";
    out << "### Critical values\n\n";
    report_table_head(out, {"type", "value", "bracket", "branches", "eigenvalue there", "stability"});
    for (const auto& c : report_get(ls, "critical")) {
      std::string branches;
      for (const auto& b : report_get(c, "branches")) branches += (branches.empty() ? "" : ", ") + report_cell(b);
      const json& z = report_get(c, "eigenvalue");
      const std::string ev = z.is_array() && z.size() == 2 ? number_text(z[0].get<double>(), "%.12g") + " " +
                                                                 (z[1].get<double>() < 0 ? "- " : "+ ") +
                                                                 number_text(std::abs(z[1].get<double>()), "%.12g") + "i"
                                                           : "";
      report_table_row(out, {report_cell(report_get(c, "type")), number_text(report_get(c, "value").get<double>(), "%.15g"),
                             report_cell(report_get(c, "bracket")), branches, ev, report_cell(report_get(c, "stability"))});
    }
    if (report_get(ls, "critical").empty()) out << "\nnone in the parameter range\n";
    out << "\nStable ranges (every real part <= 0, neutral included):";
    if (report_get(ls, "stable_ranges").empty()) out << " none";
    for (const auto& r : report_get(ls, "stable_ranges"))
      out << " [" << number_text(r[0].get<double>(), "%.12g") << ", " << number_text(r[1].get<double>(), "%.12g") << "]";
    out << "\n\n";
    const json& conv = report_get(m, "convergence");
    if (conv.is_array() && !conv.empty()) {
      out << "### Discrete step maps at " << report_cell(report_get(fam, "parameter")) << " = "
          << report_cell(report_get(report_get(ls, "discrete"), "at"))
          << "\n\nThe eigenvalues μ of each integrator's one-step map about the steady motion (central differences in the "
             "reduced variables) as log(μ)/h, against the continuous ones: the largest error over the branches that are "
             "not structural zeros, and its order in h.\n\n";
      report_table_head(out, {"integrator", "h: error", "fitted order", "declared order", "agrees"});
      for (const auto& c : conv) {
        std::string errs;
        for (const auto& r : report_get(c, "errors"))
          errs += (errs.empty() ? "" : "; ") + report_cell(report_get(r, "h")) + ": " + report_cell(report_get(r, "eigenvalue_error"));
        report_table_row(out, {report_cell(report_get(c, "label")), errs, report_cell(report_get(c, "fitted_order")),
                               report_cell(report_get(c, "declared_order")), report_get(c, "agrees") == true ? "yes" : "**no**"});
      }
      out << "\n";
    }
    const json& table = report_get(ls, "at_listed_values");
    if (!table.is_array() || table.empty()) return;
    out << "### Eigenvalues at the listed values\n\n";
    std::vector<std::string> head = {report_cell(report_get(fam, "parameter"))};
    for (std::size_t b = 0; b < table[0]["eigenvalues"].size(); ++b) head.push_back("branch " + std::to_string(b));
    report_table_head(out, head);
    for (const auto& r : table) {
      std::vector<std::string> row = {report_cell(report_get(r, "value"))};
      for (const auto& z : r["eigenvalues"]) {
        const double re = z[0].get<double>(), im = z[1].get<double>();
        row.push_back(number_text(re, "%.12g") + (im == 0.0 ? "" : (im < 0 ? " - " : " + ") + number_text(std::abs(im), "%.12g") + "i"));
      }
      report_table_row(out, row);
    }
    out << "\n";
  }

  void print_headline(const Study& st, const json& manifest, std::size_t, const fs::path& dir) const override {
    const json& ls = manifest["linear_stability"];
    std::printf("%s: linear_stability study, %zu values, %zu critical values, %.2f s -> %s\n", st.name.c_str(),
                ls["values"].get<std::size_t>(), ls["critical"].size(), manifest["wall_time_s"].get<double>(),
                dir.string().c_str());
  }
  void print_tables(const json& manifest) const override {
    if (!manifest.contains("linear_stability")) return;
    for (const auto& c : manifest["linear_stability"]["critical"])
      std::printf("  %-17s %s = %.15g  (bracket %.2g; %s)\n", c["type"].get<std::string>().c_str(),
                  manifest["linear_stability"]["family"]["parameter"].get<std::string>().c_str(), c["value"].get<double>(),
                  c["bracket"].get<double>(), c["stability"].get<std::string>().c_str());
  }

 private:
  static ClaimValue discrete_value(const json& q, const fs::path& folder) {
    ClaimValue v;
    const std::string part = q["discrete_eigenvalue"], label = q["label"];
    const double h = q["h"].get<double>(), branch = q["branch"].get<double>();
    v.what = part + " of the discrete eigenvalue of branch " + q["branch"].dump() + " of " + label + " at h = " + num(h);
    const Table t = table_format_of(folder / "discrete_eigenvalues.csv").read(folder / "discrete_eigenvalues.csv");
    const auto col = [&](const std::string& n) -> const std::vector<double>& {
      for (std::size_t i = 0; i < t.names.size(); ++i)
        if (t.names[i] == n) return t.columns[i];
      throw Error("discrete_eigenvalues.csv has no column " + n);
    };
    const auto &hs = col("h"), &br = col("branch"), &re = col("real"), &im = col("imag"), &err = col("error");
    for (std::size_t i = 0; i < hs.size(); ++i)
      if (i < t.labels.size() && t.labels[i] == label && same_value(hs[i], h) && br[i] == branch) {
        const std::complex<double> z(re[i], im[i]);
        v.x = part == "real" ? z.real() : part == "imag" ? z.imag() : part == "abs" ? std::abs(z)
              : part == "abs_imag" ? std::abs(z.imag()) : err[i];
        return v;
      }
    v.why = "discrete_eigenvalues.csv has no row of " + label + " at this h and branch";
    return v;
  }

  static ClaimValue critical_value(const json& q, const json& ls) {
    ClaimValue v;
    const std::string type = q["critical"], field = q.value("field", "value");
    std::vector<const json*> of;
    if (ls.contains("critical"))
      for (const auto& c : ls["critical"])
        if (type == "any" || c["type"] == type) of.push_back(&c);
    v.what = field + " of critical value " + type +
             (q.contains("near") ? " nearest " + num(q["near"].get<double>()) : " #" + std::to_string(q.value("index", 0)));
    if (of.empty()) {
      v.why = "the run found no critical value of type " + type;
      return v;
    }
    const json* c = nullptr;
    if (q.contains("near")) {
      const double x = q["near"].get<double>();
      for (const json* o : of)
        if (!c || std::abs((*o)["value"].get<double>() - x) < std::abs((*c)["value"].get<double>() - x)) c = o;
    } else {
      const std::size_t i = static_cast<std::size_t>(q.value("index", 0));
      if (i >= of.size()) {
        v.why = "the run found " + std::to_string(of.size()) + " critical values of type " + type;
        return v;
      }
      c = of[i];
    }
    const json& z = (*c)["eigenvalue"];
    if (field == "value") v.x = (*c)["value"].get<double>();
    else if (field == "real") v.x = z[0].get<double>();
    else if (field == "imag") v.x = z[1].get<double>();
    else if (field == "abs_imag") v.x = std::abs(z[1].get<double>());
    else v.x = (*c)[field].get<double>();
    return v;
  }
};

}  // namespace

DALEMBERT_STUDY_KIND(LinearStabilityKind)

}  // namespace dalembert
