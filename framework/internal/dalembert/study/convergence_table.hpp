#pragma once
// The convergence table of a ladder study (convergence, work_precision): one row per integrator and
// step size h, the run's errors at T against the reference. convergence.csv has the columns label,
// h, steps and then these; each row of the manifest's "convergence"[i]["errors"] has h, these and
// then the task's summaries. Written by reduce.cpp; figures and claims name them.
#include <string>
#include <vector>

namespace dalembert {

/// error_q = ‖q(T) − q_ref‖∞, error_v, error_qv = max of both, energy_error = |E(T) − E_ref|,
/// constraint_residual = |A(q)v| at T.
inline const std::vector<std::string>& convergence_error_columns() {
  static const std::vector<std::string> columns = {"error_q", "error_v", "error_qv", "energy_error", "constraint_residual"};
  return columns;
}

}  // namespace dalembert
