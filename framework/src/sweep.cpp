// Sweep studies (issue 3): a grid over system or integrator parameters, one study per cell.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/claims.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/file_output.hpp>
#include <dalembert/study/run_folder.hpp>
#include <dalembert/study/report.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/study/visible_join.hpp>
#include <fstream>
#include <limits>
#include <set>
#include <tbb/task_arena.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

namespace {

struct Cell {
  std::vector<double> values;  // one per axis
  json study;                  // the cell's study JSON
  json manifest;               // after the run
  std::string error;           // empty when it ran
};

std::string cell_name(std::size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "cell_%04zu", i);
  return buf;
}

// Metrics of one integrator in one cell: a trajectory task's summaries; for a convergence cell the
// fitted and declared orders and, for every summary, its largest value over the ladder.
std::map<std::string, double> metrics(const json& manifest, const std::string& label) {
  std::map<std::string, double> m;
  if (manifest.contains("convergence")) {
    for (const auto& c : manifest["convergence"]) {
      if (c["label"] != label) continue;
      m["fitted_order"] = c["fitted_order"].is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                      : c["fitted_order"].get<double>();
      m["declared_order"] = c["declared_order"].get<double>();
      for (const auto& row : c["errors"])
        for (const auto& [k, v] : row.items()) {
          if (k == "h" || !v.is_number()) continue;
          const double x = v.get<double>();
          m[k] = m.contains(k) ? std::max(m[k], x) : x;
        }
    }
  } else {
    for (const auto& t : manifest["tasks"])
      if (t["label"] == label && t.contains("summary"))
        for (const auto& [k, v] : t["summary"].items()) m[k] = v.get<double>();
  }
  return m;
}

// "cell 3 (beta = 0.25, h = 0.1)"
std::string describe_cell(const Study& st, const Cell& c, std::size_t i) {
  std::string out = "cell " + std::to_string(i) + " (";
  for (std::size_t a = 0; a < st.sweep.axes.size(); ++a)
    out += (a ? ", " : "") + st.sweep.axes[a].name + " = " + json(c.values[a]).dump();
  return out + ")";
}

// Every cell checked as its own study before any runs: an unknown plugin, a wrong vector size or
// an inadmissible start is one error now, not a failure in every cell after the run.
void plan_cells(const Study& st, const std::vector<Cell>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    try {
      (void)plan_study(parse_study(cells[i].study, st.file));
    } catch (const std::exception& e) {
      throw InputError(st.file + ": /sweep, " + describe_cell(st, cells[i], i), e.what());
    }
  }
}

}  // namespace

RunReport run_sweep(const Study& st, const RunOptions& opt) {
  const auto t_start = std::chrono::steady_clock::now();
  const auto& axes = st.sweep.axes;

  // The grid, first axis slowest.
  std::vector<Cell> cells(1);
  for (const auto& axis : axes) {
    std::vector<Cell> next;
    for (const auto& c : cells)
      for (double v : axis.values) {
        Cell n = c;
        n.values.push_back(v);
        next.push_back(n);
      }
    cells = next;
  }
  json base = st.raw;
  base.erase("sweep");
  base.erase("figures");
  base.erase("claims");  // evaluated on sweep.csv, not per cell
  base["kind"] = st.sweep.of;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    cells[i].study = base;
    cells[i].study["name"] = cell_name(i);
    for (std::size_t a = 0; a < axes.size(); ++a)
      for (const auto& ptr : axes[a].set) cells[i].study[json::json_pointer(ptr)] = cells[i].values[a];
  }

  plan_cells(st, cells);

  const fs::path dir = opt.out_dir ? *opt.out_dir : opt.out_root / st.name;
  RunFolder folder(dir);
  json manifest;
  std::size_t failed = 0;  // cells that ended in an error
  try {
    std::atomic<long> done{0};
    const bool show = opt.progress && isatty(STDERR_FILENO);
    tbb::task_arena arena(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic);
    arena.execute([&] {
      parallel_for_visibly(std::size_t(0), cells.size(), [&](std::size_t i) {
        RunOptions copt;
        copt.out_dir = folder.staging() / "cells" / cell_name(i);
        copt.threads = 1;  // cells are the parallel unit
        copt.plots = false;
        copt.verbose = false;
        copt.progress = false;
        try {
          cells[i].manifest = run_study(parse_study(cells[i].study, st.file), copt).manifest;
        } catch (const std::exception& e) {
          cells[i].error = e.what();
        } catch (...) {  // a plugin may throw anything; the cell fails, the sweep goes on
          cells[i].error = "an exception that is not a std::exception (thrown by a plugin)";
        }
        const long d = ++done;
        if (show) std::fprintf(stderr, "\r%s: %ld/%zu cells ", st.name.c_str(), d, cells.size());
      });
    });
    if (show) std::fprintf(stderr, "\r%*s\r", 60, "");

    for (const auto& c : cells) failed += !c.error.empty();
    if (failed == cells.size())  // nothing to tabulate: the sweep failed, whatever its folder holds
      throw RunFailure("every one of the " + std::to_string(cells.size()) + " cells failed; " +
                           describe_cell(st, cells[0], 0) + ": " + cells[0].error,
                       -1, 0.0);

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
    CsvWriter csv(folder.file("sweep.csv"), columns);
    json cell_list = json::array();
    for (std::size_t i = 0; i < cells.size(); ++i) {
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
    json study_run = {{"name", st.name}, {"kind", "sweep"}, {"description", st.description},
                      {"sweep", {{"of", st.sweep.of}, {"axes", axes_json}}}, {"figures", st.figures}};
    study_run["integrators"] = json::array();
    for (const auto& u : st.integrators) {
      json ij = {{"label", u.label}, {"plugin", u.plugin}};
      if (!u.display.empty()) ij["display"] = u.display;  // figures' names for it
      if (u.reference) ij["reference"] = true;
      study_run["integrators"].push_back(ij);
    }
    if (st.raw.contains("claims")) study_run["claims"] = st.raw["claims"];
    manifest = {{"dalembert", {{"version", version()}, {"revision", source_revision()}}},
                {"study_file", st.file},
                {"study", study_run},
                {"base_study", base},
                {"cells", cell_list},
                {"failed_cells", failed},
                {"files", json::array({{{"path", "sweep.csv"}, {"kind", "sweep"}, {"columns", columns}}})},
                {"threads", opt.threads}};
    manifest["wall_time_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    write_json_file(folder.file("manifest.json"), manifest);
    manifest["claims"] = evaluate_claims(st.claims, manifest, folder.staging());
    attach_figures(manifest, folder.staging(), opt.plots && !st.figures.empty(), st.figures.empty());
    write_report(manifest, folder.staging());
    write_json_file(folder.file("manifest.json"), manifest);
  } catch (const std::exception& e) {
    folder.fail(e.what());
    throw;
  }
  folder.commit();
  if (failed > 0)
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (!cells[i].error.empty()) {
        std::fprintf(stderr, "warning: %s: %zu of %zu cells failed (listed in manifest.json), e.g. %s: %s\n",
                     st.name.c_str(), failed, cells.size(), describe_cell(st, cells[i], i).c_str(), cells[i].error.c_str());
        break;
      }
  if (opt.verbose) {
    std::printf("%s: sweep of %zu cells (%zu failed), %.2f s -> %s\n", st.name.c_str(), cells.size(), failed,
                manifest["wall_time_s"].get<double>(), dir.string().c_str());
  }
  print_claims(st.name, manifest["claims"], opt.verbose);
  return {dir, manifest, manifest["claims"]["failed"].get<long>()};
}

}  // namespace dalembert
