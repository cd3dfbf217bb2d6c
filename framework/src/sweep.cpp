// Sweep studies: the grid of cells, their plans, and sweep.csv.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/claim_targets.hpp>
#include <dalembert/study/convergence_table.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/study/provenance.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/study/sweep.hpp>
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

void keep_max(std::map<std::string, double>& m, const std::string& k, double x) { m[k] = m.contains(k) ? std::max(m[k], x) : x; }

// Metrics of one integrator in one cell: a trajectory task's summaries; for a convergence cell the
// fitted and declared orders and, for every summary, its largest value over the ladder; for an
// ensemble cell every summary's min, max and mean over the members (<summary>_min, ...).
std::map<std::string, double> metrics(const json& manifest, const std::string& label) {
  std::map<std::string, double> m;
  if (manifest.contains("convergence")) {
    for (const auto& c : manifest["convergence"]) {
      if (c["label"] != label) continue;
      m["fitted_order"] = c["fitted_order"].is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                      : c["fitted_order"].get<double>();
      m["declared_order"] = c["declared_order"].get<double>();
      for (const auto& row : c["errors"])
        for (const auto& [k, v] : row.items())
          if (k != "h" && v.is_number()) keep_max(m, k, v.get<double>());
    }
  } else if (manifest.contains("ensemble")) {
    for (const auto& e : manifest["ensemble"])
      if (e["label"] == label)
        for (const auto& [name, s] : e["summary"].items())
          for (const auto& [stat, v] : s.items())
            m[name + "_" + stat] = v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
  } else {
    for (const auto& t : manifest["tasks"])
      if (t["label"] == label && t.contains("summary"))
        for (const auto& [k, v] : t["summary"].items())
          m[k] = v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
  }
  return m;
}

// The metrics of integrator i that metrics() will find in the manifest of a cell planned as `u`:
// what its plan says the run reports (sweep.csv's columns are their union over the cells).
ReportedNames planned_metrics(const RunUnit& u, std::size_t i) {
  const ReportedNames& summaries = u.plan.summaries[i];
  ReportedNames m = summaries;
  if (ladder_kind(u.study.kind)) {
    m.names = {"fitted_order", "declared_order"};
    m.names.insert(m.names.end(), convergence_error_columns().begin(), convergence_error_columns().end());
    m.names.insert(m.names.end(), summaries.names.begin(), summaries.names.end());
  } else if (u.study.kind == "ensemble") {
    m.names.clear(), m.patterns.clear();
    for (const auto& stat : EnsembleStatistics::summary_statistics()) {
      for (const auto& n : summaries.names) m.names.push_back(n + "_" + stat);
      for (const auto& p : summaries.patterns) m.patterns.push_back(p + "_" + stat);
    }
  }
  return m;
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
        for (const auto& [k, v] : metrics(c.manifest, u.label)) names.insert(k);
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
      const auto mm = cells[i].error.empty() ? metrics(cells[i].manifest, u.label) : std::map<std::string, double>{};
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
          {"files", json::array({{{"path", "sweep.csv"}, {"kind", "sweep"}, {"columns", columns}}})}};
}

}  // namespace dalembert
