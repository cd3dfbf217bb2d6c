#pragma once
// Up-front limits on the work and output a study asks for, so a typo (T = 1e9, a million-element
// array, a 10^6-cell sweep) is refused in one line before anything runs, instead of running for
// days or ending in std::bad_alloc. A study that means it raises a limit with its "limits" key.
#include <dalembert/core/json_input.hpp>
#include <string>

namespace dalembert {

struct Study;

/// The defaults are one to two orders of magnitude above the largest shipped study.
struct Limits {
  double steps = 1e8;         // steps of one task (T/h): ~10 s to minutes for one run
  double total_steps = 1e10;  // steps of all tasks (of all cells of a sweep)
  double tasks = 1e6;         // integrators x step sizes x ensemble members (x sweep cells)
  double cells = 1e4;         // sweep cells: the product of the axis sizes
  double members = 1e6;       // ensemble members
  double array = 1e4;         // elements of any array in the study (figures, observers, stages, ...)
  double rows = 1e8;          // estimated rows written (~ 10 GB of CSV, ~3 GB of .npy for a small system)
};

/// What a study asks for, estimated from its parsed form.
struct Workload {
  double tasks = 0, total_steps = 0, rows = 0, bytes = 0;
  std::string format = "csv";  // the table format of the rows (study/table_format.hpp)
  Workload& operator+=(const Workload& o);
};

/// The study's "limits" object (each key optional), over the defaults.
Limits parse_limits(const JsonCursor& root);
/// Refuses any array in `j` (the whole study) with more than `limits.array` elements.
void check_array_sizes(const JsonCursor& root, const Limits& limits);
/// Refuses T/h above limits.steps; call before counting the steps (a huge T/h overflows a long).
void check_steps(const JsonCursor& T, double T_value, double h, const Limits& limits);
/// The tasks, steps and output of a parsed study, as its kind estimates them (StudyKind::workload).
Workload workload(const Study& s);
/// The steps of size h that reach T, as a workload counts them.
double steps_of(double T, double h);
/// Refuses a workload above the limits; `root` is the study (a sweep: the sweep study, `what`
/// names the cells, e.g. " over 6 sweep cells").
void check_workload(const JsonCursor& root, const Workload& w, const Limits& limits, const std::string& what = "");
/// Refuses more ensemble members than limits.members; `at` is /ensemble/size.
void check_members(const JsonCursor& at, double members, const Limits& limits);
/// Refuses more sweep cells than limits.cells; `at` is /sweep/axes.
void check_cells(const JsonCursor& at, double cells, const Limits& limits);

}  // namespace dalembert
