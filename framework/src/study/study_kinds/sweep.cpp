// Sweep studies: the grid of cells, their plans, and sweep.csv.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/figure_schema.hpp>
#include <dalembert/study/claim_targets.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/provenance.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/study/study_kind.hpp>
#include <dalembert/study/sweep.hpp>
#include <dalembert/study/file_output.hpp>
#include <dalembert/study/report.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/names.hpp>
#include <limits>
#include <map>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

namespace {

std::string cell_name(std::size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "cell_%04zu", i);
  return buf;
}

// The metrics of integrator i that metrics() will find in the manifest of a cell planned as `u`:
// what its plan says the run reports (sweep.csv's columns are their union over the cells).
ReportedNames planned_metrics(const RunUnit& u, std::size_t i) { return kind_of(u.study).planned_metrics(u, i); }

// The metrics of integrator `label` in the manifest of a cell of kind `of` (StudyKind::cell_metrics):
// a trajectory task's summaries; for a convergence cell the fitted and declared orders and, for
// every summary, its largest value over the ladder; for an ensemble cell every summary's min, max
// and mean over the members (<summary>_min, ...).
std::map<std::string, double> metrics(const Study& st, const json& manifest, const std::string& label) {
  return find_study_kind(st.sweep.of)->cell_metrics(manifest, label);
}

// Every integrator's metrics over the cells.
std::vector<ReportedNames> planned_metrics(const std::vector<RunUnit>& units) {
  std::vector<ReportedNames> out(units.front().study.integrators.size());
  for (const auto& u : units)
    for (std::size_t i = 0; i < out.size(); ++i) {
      const ReportedNames m = planned_metrics(u, i);
      for (const auto& n : m.names)
        if (std::find(out[i].names.begin(), out[i].names.end(), n) == out[i].names.end()) out[i].names.push_back(n);
      for (const auto& p : m.patterns)
        if (std::find(out[i].patterns.begin(), out[i].patterns.end(), p) == out[i].patterns.end()) out[i].patterns.push_back(p);
      out[i].known = out[i].known && m.known;
    }
  return out;
}

// The study every cell is: the sweep without its grid, figures and claims (evaluated on sweep.csv).
json base_study(const Study& st) {
  json base = st.raw;
  base.erase("sweep");
  base.erase("figures");
  base.erase("claims");
  base["kind"] = st.sweep.of;
  return base;
}

// The sweep as it ran: the study of cell 0 as it ran (plugins with every parameter, the
// integrators' traits), the places the axes set holding cell 0's values, under the sweep's name,
// kind, figures and claims; each integrator also lists the declared orders of its cells (an axis
// may change the order, e.g. beta + beta' = 1/2 makes Newmark inconsistent).
json sweep_study_run(const Study& st, const std::vector<SweepCell>& cells) {
  json run = cells.front().manifest["study"];
  run["name"] = st.name;
  run["kind"] = "sweep";
  run["description"] = st.description;
  run["figures"] = st.figures;
  run.erase("claims");
  if (st.raw.contains("claims")) run["claims"] = st.raw["claims"];
  for (std::size_t i = 0; i < run["integrators"].size(); ++i) {
    std::set<int> orders;
    for (const auto& c : cells) orders.insert(c.manifest["study"]["integrators"][i]["traits"]["order"].get<int>());
    run["integrators"][i]["declared_orders"] = orders;
  }
  return run;
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

// A sweep: its block, then every cell parsed as the study it will run (base + axis values), so a
// bad cell is refused before anything runs; the first cell stands for the base study.
Study parse_sweep(const JsonCursor& root, const StudyKind& sweep, const std::string& file, const std::string& name,
                  const Limits& limits) {
  const JsonCursor sw = root["sweep"];
  sw.allow_keys({"of", "axes"});
  SweepSpec spec;
  spec.of = sw["of"].string();
  const StudyKind* of = find_study_kind(spec.of);
  if (!of || !of->sweepable()) {
    std::vector<std::string> kinds;
    for (const StudyKind* k : study_kinds())
      if (k->sweepable()) kinds.push_back("\"" + k->name() + "\"");
    const std::string last = kinds.back();
    kinds.pop_back();
    sw["of"].fail("a sweep is a grid of " + joined(kinds) + " or " + last + " runs");
  }
  (void)parse_record_format(root, *of);  // here, not in a cell: the message names no cell
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
  first.kind = sweep.name();
  first.sweep = spec;
  first.raw = root.json();
  first.figures = parse_figures(root, sweep.figure_types(), labels_of(first.integrators));
  check_sweep_figures(root, spec);
  first.claims = parse_claims(root, sweep, labels_of(first.integrators));  // on sweep.csv; cells claim nothing
  return first;
}

// A sweep: one row per cell with its axis values, linking the cell's own report.
void report_sweep(std::ostream& out, const json& m) {
  const json& cells = report_get(m, "cells");
  if (!cells.is_array()) return;
  out << "## Sweep (" << report_cell(report_get(m, "failed_cells")) << " failed cells; every metric in `sweep.csv`)\n\n";
  std::vector<std::string> head = {"cell"};
  for (const auto& a : report_get(report_get(report_get(m, "study"), "sweep"), "axes")) head.push_back(report_cell(report_get(a, "name")));
  head.push_back("ok");
  report_table_head(out, head);
  for (const auto& c : cells) {
    std::vector<std::string> row = {"[" + report_cell(report_get(c, "cell")) + "](" + report_cell(report_get(c, "folder")) + "/report.md)"};
    for (std::size_t a = 1; a + 1 < head.size(); ++a) row.push_back(report_cell(report_get(c, head[a].c_str())));
    row.push_back(report_get(c, "ok") == true ? "yes" : "**no**: " + report_cell(report_get(c, "error")));
    report_table_row(out, row);
  }
  out << "\n";
}

// A cell's folder: its manifest, error.txt if a task failed, report.md.
void write_cell(SweepCell& cell, const RunUnit& u, const UnitResult& r, const fs::path& staging) {
  cell.manifest = r.manifest;
  cell.error = r.errors;
  const fs::path dir = staging / u.folder;
  attach_claims(cell.manifest, {}, dir);
  cell.manifest["figures_status"] = "none requested";
  if (!cell.error.empty()) write_file_atomically(dir / "error.txt", cell.error + "\n");
  write_report(cell.manifest, dir);
  write_json_file(dir / "manifest.json", cell.manifest);
}

}  // namespace

std::string describe_cell(const Study& st, const SweepCell& c, std::size_t i) {
  std::string out = "cell " + std::to_string(i) + " (";
  for (std::size_t a = 0; a < st.sweep.axes.size(); ++a)
    out += (a ? ", " : "") + st.sweep.axes[a].name + " = " + json(c.values[a]).dump();
  return out + ")";
}

std::vector<SweepCell> sweep_cells(const Study& st) {
  std::vector<SweepCell> cells(1);
  for (const auto& axis : st.sweep.axes) {
    std::vector<SweepCell> next;
    for (const auto& c : cells)
      for (double v : axis.values) {
        SweepCell n = c;
        n.values.push_back(v);
        next.push_back(n);
      }
    cells = next;
  }
  const json base = base_study(st);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    cells[i].study = base;
    cells[i].study["name"] = cell_name(i);
    for (std::size_t a = 0; a < st.sweep.axes.size(); ++a)
      for (const auto& ptr : st.sweep.axes[a].set) cells[i].study[json::json_pointer(ptr)] = cells[i].values[a];
  }
  return cells;
}

std::vector<RunUnit> plan_sweep(const Study& st, const std::vector<SweepCell>& cells) {
  std::vector<Study> studies;
  const auto in_cell = [&](std::size_t i, auto&& work) {
    try {
      work();
    } catch (const std::exception& e) {
      throw InputError(st.file + ": /sweep, " + describe_cell(st, cells[i], i), e.what());
    }
  };
  for (std::size_t i = 0; i < cells.size(); ++i) in_cell(i, [&] { studies.push_back(parse_study(cells[i].study, st.file)); });
  try {  // every cell's plugins constructed in one probe process; then planning a cell probes nothing new
    std::vector<const Study*> all;
    for (const auto& s : studies) all.push_back(&s);
    if (!all.empty()) probe_study_plugins(*study_registry(studies.front()), all);
  } catch (const std::exception&) {
    // planning each cell below names the first cell that fails
  }
  std::vector<RunUnit> units;
  for (std::size_t i = 0; i < cells.size(); ++i)
    in_cell(i, [&] { units.push_back(plan_unit(studies[i], fs::path("cells") / cell_name(i))); });
  check_sweep_claim_targets(st, planned_metrics(units));
  return units;
}

json sweep_manifest(const Study& st, const std::vector<SweepCell>& cells, const fs::path& folder) {
  const auto& axes = st.sweep.axes;
  // sweep.csv: one row per cell and integrator; metric columns are the union over cells.
  std::set<std::string> names;
  for (const auto& c : cells)
    if (c.error.empty())
      for (const auto& u : st.integrators)
        for (const auto& [k, v] : metrics(st, c.manifest, u.label)) names.insert(k);
  std::vector<std::string> columns = {"label", "cell"};
  for (const auto& a : axes) columns.push_back(a.name);
  columns.push_back("ok");
  columns.insert(columns.end(), names.begin(), names.end());
  CsvWriter csv(folder / "sweep.csv", columns);
  json cell_list = json::array();
  std::size_t failed = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    failed += !cells[i].error.empty();
    json cj = {{"cell", i}, {"folder", "cells/" + cell_name(i)}, {"ok", cells[i].error.empty()}};
    for (std::size_t a = 0; a < axes.size(); ++a) cj[axes[a].name] = cells[i].values[a];
    if (!cells[i].error.empty()) cj["error"] = cells[i].error;
    cell_list.push_back(cj);
    for (const auto& u : st.integrators) {
      std::vector<double> row = {double(i)};
      row.insert(row.end(), cells[i].values.begin(), cells[i].values.end());
      row.push_back(cells[i].error.empty() ? 1.0 : 0.0);
      const auto mm = cells[i].error.empty() ? metrics(st, cells[i].manifest, u.label) : std::map<std::string, double>{};
      for (const auto& n : names) row.push_back(mm.contains(n) ? mm.at(n) : std::numeric_limits<double>::quiet_NaN());
      csv.row({u.label}, row);
    }
  }
  csv.close();

  json axes_json = json::array();
  for (const auto& a : axes) axes_json.push_back({{"name", a.name}, {"set", a.set}, {"values", a.values}});
  json study_run = sweep_study_run(st, cells);
  study_run["sweep"] = {{"of", st.sweep.of}, {"axes", axes_json}};
  json plugins = json::array();  // every cell's, once
  for (const auto& c : cells)
    for (const auto& p : c.manifest.value("plugins", json::array()))
      if (std::find(plugins.begin(), plugins.end(), p) == plugins.end()) plugins.push_back(p);
  return {{"dalembert", framework_provenance()},
          {"study_file", st.file},
          {"study", study_run},
          {"base_study", base_study(st)},
          {"plugins", plugins},
          {"cells", cell_list},
          {"failed_cells", failed},
          {"files", json::array({{{"path", "sweep.csv"}, {"kind", "sweep"}, {"columns", columns}, {"format", "csv"}}})}};
}

}  // namespace dalembert

namespace dalembert {

namespace {

class SweepKind : public StudyKind {
 public:
  std::string name() const override { return "sweep"; }
  std::vector<KindKey> keys() const override { return {{"sweep", "a \"sweep\" block needs \"kind\": \"sweep\""}}; }
  std::vector<std::string> figure_types() const override { return {"sweep", "heatmap"}; }
  std::vector<std::string> claim_quantities() const override { return {"sweep"}; }
  Study parse(const JsonCursor& root, Study s) const override { return parse_sweep(root, *this, s.file, s.name, s.limits); }

  // Every cell a unit of the run, each planned as its own study.
  std::vector<RunUnit> units(const Study& st) const override { return plan_sweep(st, sweep_cells(st)); }

  // Every cell reduced into its folder; sweep.csv; the sweep's manifest. Every cell failed:
  // nothing to tabulate, the sweep failed, whatever its folder holds.
  KindResult reduce_run(const Study& st, const std::vector<RunUnit>& units, const Outcomes& outcomes,
                        const fs::path& staging, bool) const override {
    std::vector<SweepCell> cells = sweep_cells(st);
    std::size_t failed = 0;
    for (std::size_t i = 0; i < units.size(); ++i) {
      write_cell(cells[i], units[i], reduce_unit(units[i], outcomes, staging, false), staging);
      failed += !cells[i].error.empty();
    }
    if (failed == cells.size())
      throw RunFailure("every one of the " + std::to_string(failed) + " cells failed; " + describe_cell(st, cells[0], 0) +
                           ": " + cells[0].error,
                       -1, 0.0);
    return {sweep_manifest(st, cells, staging), ""};
  }

  void report(std::ostream& out, const json& manifest) const override { report_sweep(out, manifest); }

  void print_headline(const Study& st, const json& manifest, std::size_t, const fs::path& dir) const override {
    std::printf("%s: sweep of %zu cells (%s failed), %.2f s -> %s\n", st.name.c_str(), manifest["cells"].size(),
                manifest["failed_cells"].dump().c_str(), manifest["wall_time_s"].get<double>(), dir.string().c_str());
  }

  // The first failed cell, and how many failed.
  void warn(const Study& st, const json& manifest) const override {
    const json& list = manifest["cells"];
    std::size_t failed = 0;
    for (const auto& c : list) failed += c.contains("error");
    const std::vector<SweepCell> cells = sweep_cells(st);
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i].contains("error")) {
        std::fprintf(stderr, "warning: %s: %zu of %zu cells failed (listed in manifest.json), e.g. %s: %s\n",
                     st.name.c_str(), failed, list.size(), describe_cell(st, cells[i], i).c_str(),
                     list[i]["error"].get<std::string>().c_str());
        return;
      }
  }
};

}  // namespace

DALEMBERT_STUDY_KIND(SweepKind)

}  // namespace dalembert
