#pragma once
// Runs a study in stages (issue 16): plan — check everything before any output exists (plugins,
// parameters, the initial state, model compatibility) and list the tasks of any kind (trajectory
// runs, convergence rungs and references, ensemble members, sweep cells); execute — on this
// process's TBB threads, or on every rank of an MPI job (study/execution.hpp), each task with
// plugin instances of its own, its outcome checkpointed as it finishes; reduce — statistics, fits
// and tables from the checkpoint, in task order; write — one folder: manifest.json, tidy CSV
// files, claims, figures, report.md. Output is identical for any number of ranks and threads, and
// for a run resumed after a kill (timings and the execution record in the manifest aside).
#include <boost/config.hpp>
#include <dalembert/study/execution.hpp>
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
  bool resume = false;  // continue NAME.incomplete (or NAME.failed): only the missing tasks run
  Cluster* cluster = nullptr;  // where the tasks run (nullptr: process_cluster())
};

struct RunReport {
  std::filesystem::path folder;
  nlohmann::json manifest;
  long claims_failed = 0;  // the run is complete; its claims (manifest["claims"]) did not all hold
  bool rank0 = true;       // an MPI run's other ranks get no manifest: rank 0 writes the folder
};

BOOST_SYMBOL_VISIBLE RunReport run_study(const Study& study, const RunOptions& options = {});

/// The plotting program: $DALEMBERT_PLOT_SCRIPT, else dalembert/plot.py of python_package_root().
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

/// `dalembert animate RUN [options]`: the animator (dalembert/animation.py beside plot.py) started
/// with `arguments` as its argument vector, under the plotter's time limit and matplotlib folder;
/// its output file names go to stdout. Throws Error with the animator's own last line on failure.
BOOST_SYMBOL_VISIBLE void animate_run(const std::vector<std::string>& arguments);

BOOST_SYMBOL_VISIBLE const char* version();
BOOST_SYMBOL_VISIBLE const char* source_revision();

}  // namespace dalembert
