#pragma once
// Checked claims against what the run will produce (issue 26): once a study is planned, every
// column, task summary, convergence-table entry (column and h), ensemble statistics column,
// sweep metric and axis value a claim names, and every time window it selects, is one the run will
// write; otherwise an InputError at the claim's JSON path, before anything runs. Known only after
// the run, and explained then in claims.csv: manifest pointers, summaries whose names depend on the
// run (impact_<k>_t: the k-th impact must happen), and a failed task's or cell's values.
#include <dalembert/study/reported_names.hpp>
#include <vector>

namespace dalembert {

struct Study;
struct StudyPlan;

/// The claims of `study` (not a sweep) against its plan: its tasks' columns, summaries and times.
void check_claim_targets(const Study& study, const StudyPlan& plan);

/// The claims of a sweep against sweep.csv: the axes and their values, the columns cell and ok,
/// and `metrics[i]`, the metric columns of integrator i over every cell.
void check_sweep_claim_targets(const Study& sweep, const std::vector<ReportedNames>& metrics);

}  // namespace dalembert
