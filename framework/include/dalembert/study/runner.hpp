#pragma once
// Runs a study: checks everything it can before any output exists (plugins, parameters, the
// initial state, model compatibility), then runs its tasks in parallel with TBB — one set of
// plugin instances per task — and writes one folder: manifest.json, tidy CSV files and figures.
// Output is identical for any number of threads (timings aside).
#include <boost/config.hpp>
#include <dalembert/study/study.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

namespace dalembert {

struct RunOptions {
  std::filesystem::path out_root = "results";       // the run goes to out_root/<study name> ...
  std::optional<std::filesystem::path> out_dir;     // ... unless an exact folder is given
  int threads = 0;                                  // 0: all cores
  bool progress = true;                             // a progress line, on a terminal only
  bool plots = true;                                // draw the study's figures (python3 + matplotlib)
  bool verbose = true;                              // print the summary tables on stdout
};

struct RunReport {
  std::filesystem::path folder;
  nlohmann::json manifest;
  long claims_failed = 0;  // the run is complete; its claims (manifest["claims"]) did not all hold
};

BOOST_SYMBOL_VISIBLE RunReport run_study(const Study& study, const RunOptions& options = {});

/// A sweep: every cell of the grid is the study with the axis values written in, run into
/// cells/<name>/ of the sweep's folder (cells in parallel); sweep.csv tabulates each cell's
/// summaries and fitted orders per integrator. A cell that fails is recorded, not fatal.
BOOST_SYMBOL_VISIBLE RunReport run_sweep(const Study& study, const RunOptions& options = {});

/// The plotting script: $DALEMBERT_PLOT_SCRIPT, the installed copy, or the source tree's.
BOOST_SYMBOL_VISIBLE std::filesystem::path plot_script();

/// Draws the figures into a staged run folder when `draw`, indexing them in the manifest and
/// recording figures_status (a plotting failure is a warning: the data are complete).
BOOST_SYMBOL_VISIBLE void attach_figures(nlohmann::json& manifest, const std::filesystem::path& staging, bool draw,
                                         bool none_requested);

/// Draws the figures of a finished or staged run folder; returns the files written.
/// `index`, if given, receives the figures drawn: [{"name", "type", "panels", "files"}, ...]. The
/// script's "warning: figure ..." lines are passed on to stderr; a failure names each figure and
/// its cause.
BOOST_SYMBOL_VISIBLE std::vector<std::filesystem::path> draw_figures(const std::filesystem::path& run_folder,
                                                                     nlohmann::json* index = nullptr);

BOOST_SYMBOL_VISIBLE const char* version();
BOOST_SYMBOL_VISIBLE const char* source_revision();

}  // namespace dalembert
