#pragma once
// Sweep studies (issue 3): a grid over any system or integrator parameter, one study per cell
// (kind `sweep.of`: trajectory, convergence or ensemble) with the axis values written in. The
// cells are units of one run (run_units.hpp): planned before anything runs, their tasks executed
// together, each reduced into cells/<name>/; sweep.csv tabulates every cell's metrics.
#include <dalembert/study/run_units.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

struct SweepCell {
  std::vector<double> values;  // one per axis
  nlohmann::json study;        // the cell's study
  nlohmann::json manifest;     // after the run
  std::string error;           // empty when it ran
};

/// The grid, first axis slowest, each cell's study written out.
std::vector<SweepCell> sweep_cells(const Study& sweep);
/// Every cell planned as its own study: an InputError naming the cell on the first problem.
std::vector<RunUnit> plan_sweep(const Study& sweep, const std::vector<SweepCell>& cells);
/// "cell 3 (beta = 0.25, h = 0.1)"
std::string describe_cell(const Study& sweep, const SweepCell& cell, std::size_t i);
/// Writes sweep.csv into `folder`; returns the sweep's manifest (without claims and figures).
nlohmann::json sweep_manifest(const Study& sweep, const std::vector<SweepCell>& cells, const std::filesystem::path& folder);

}  // namespace dalembert
