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
//       a row of eigenvalues.csv at grid value x.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/core/linearizable.hpp>
#include <dalembert/study/crash_report.hpp>
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
const std::vector<std::string> kColumns = {"value", "branch", "real", "imag"};

std::string num(double x) { return number_text(x, "%.12g"); }

// Two parameter values that name the same grid point.
bool same_value(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

/// The parameter grid of a study: from + (to − from) k / steps and the listed values, sorted.
struct Grid {
  double from = 0.0, to = 0.0;
  long steps = 0;
  std::vector<double> listed, values;
};

Grid parse_grid(const JsonCursor& p) {
  p.allow_keys({"from", "to", "steps", "values"});
  Grid g;
  g.from = p["from"].number();
  g.to = p["to"].number();
  if (!(g.to > g.from)) p["to"].fail("the parameter range is empty: \"to\" must exceed \"from\" = " + num(g.from));
  g.steps = p["steps"].integer();
  if (g.steps < 1) p["steps"].fail("the grid needs at least one step");
  if (p.has("values")) g.listed = p["values"].numbers();
  for (long k = 0; k <= g.steps; ++k) g.values.push_back(g.from + (g.to - g.from) * static_cast<double>(k) / static_cast<double>(g.steps));
  g.values.back() = g.to;
  for (double x : g.listed)
    if (std::none_of(g.values.begin(), g.values.end(), [&](double y) { return same_value(y, x); })) g.values.push_back(x);
  std::sort(g.values.begin(), g.values.end());
  return g;
}

Grid grid_of(const Study& st) { return parse_grid(JsonCursor(st.raw, st.file)["parameter"]); }

// The quantities of this kind's claims, each visited (ratios unfolded).
void each_own_quantity(const JsonCursor& root, const std::function<void(const JsonCursor&)>& f) {
  if (!root.has("claims") || !root["claims"].has("checks")) return;
  const std::function<void(const JsonCursor&)> visit = [&](const JsonCursor& q) {
    if (q.has("ratio")) visit(q["ratio"].at(0)), visit(q["ratio"].at(1));
    else if (q.has("critical") || q.has("eigenvalue")) f(q);
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

// The linearisation's spectrum at parameter x, its k structural zeros deflated.
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
            {"family", "\"family\" (a system's family of steady motions) belongs to linear_stability studies"}};
  }
  bool default_observers() const override { return false; }
  std::vector<std::string> figure_types() const override { return {"eigenvalues"}; }
  std::vector<std::string> claim_quantities() const override { return {"critical", "eigenvalue"}; }

  Study parse(const JsonCursor& root, Study s) const override {
    for (const char* k : {"initial", "integrators", "observers", "T", "h", "record_every", "impact_map", "record_format"})
      if (root.has(k))
        root[k].fail(std::string("a linear_stability study runs no integrator: its states are the system's steady motions, "
                                 "and \"") + k + "\" has no use here");
    for (const StudyKind* other : study_kinds())
      if (other != this)
        for (const auto& key : other->keys())
          if (root.has(key.key)) root[key.key].fail(key.elsewhere);
    s.system = parse_plugin(root["system"], {});
    if (root.has("family")) (void)safe_name(root["family"], "family name");
    const Grid grid = parse_grid(root["parameter"]);
    if (root.has("check_derivatives")) s.check_derivatives = root["check_derivatives"].boolean();
    parse_plugin_paths(root, s);
    s.figures = parse_figures(root, figure_types(), {});
    s.claims = parse_claims(root, *this, {});
    each_own_quantity(root, [&](const JsonCursor& q) {
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
    w.tasks = static_cast<double>(grid_of(s).values.size());  // one linearisation per value
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
    if (st.raw.contains("claims")) run["claims"] = st.raw["claims"];
    return plan;
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
  }

  ClaimValue claim_value(const json& q, const json& m, const fs::path& folder) const override {
    ClaimValue v;
    const json& ls = m.contains("linear_stability") ? m["linear_stability"] : json();
    if (q.contains("critical")) return critical_value(q, ls);
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
