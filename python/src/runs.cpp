// Runs: a study (a file, or a dict checked as a file would be) run into a folder by run_study,
// exactly as `dalembert run` runs it, with the GIL released while C++ runs. The package reads the
// folder (dalembert/load.py), so run() and load() give the same Run.
#include "bindings.hpp"

#include <dalembert/core/errors.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study.hpp>

namespace dalembert::python {

namespace {

Study study_of(const py::handle& study) {
  if (py::isinstance<py::dict>(study)) return parse_study(to_json(study, "study: "), "study");
  return load_study(py::str(study).cast<std::string>());  // a path (str or os.PathLike)
}

}  // namespace

void register_runs(py::module_& m) {
  m.def(
      "run_study",
      [](const py::handle& study, const std::string& out_dir, int threads, bool quiet, bool plots) {
        if (threads < 0) throw InputError("run_study: threads", "= " + std::to_string(threads) + ": expected 0 (all cores) or more");
        const Study st = study_of(study);
        RunOptions opt;
        opt.out_dir = out_dir;
        opt.threads = threads;
        opt.verbose = !quiet;
        opt.progress = !quiet;
        opt.plots = plots;
        RunReport report;
        {
          py::gil_scoped_release release;
          report = run_study(st, opt);
        }
        return py::make_tuple(report.folder.string(), report.claims_failed);
      },
      py::arg("study"), py::arg("out_dir"), py::arg("threads") = 0, py::arg("quiet") = true, py::arg("plots") = false,
      "Runs a study (a file path or a dict) into the folder out_dir; returns (folder, claims failed).");
  m.def(
      "study_name", [](const py::handle& study) { return study_of(study).name; }, py::arg("study"),
      "The name of a study (a file path or a dict), after checking it.");
}

}  // namespace dalembert::python
