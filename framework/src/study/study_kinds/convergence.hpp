#pragma once
// Convergence studies: every integrator over a ladder of step sizes against a reference (the
// system's exact solution or a declared run); convergence.csv, the fitted orders and the order
// audit. Work-precision studies (work_precision.cpp) are these with every rung also timed.
#include <dalembert/study/study_kind.hpp>

namespace dalembert {

class ConvergenceKind : public StudyKind {
 public:
  std::string name() const override { return "convergence"; }
  std::vector<KindKey> keys() const override;
  bool ladder() const override { return true; }
  bool default_observers() const override { return false; }
  bool sweepable() const override { return true; }
  std::vector<std::string> figure_types() const override { return {"convergence"}; }
  void check_figures(const JsonCursor& root, const Study& s) const override;
  std::vector<std::string> claim_quantities() const override { return {"fitted_order", "error"}; }
  void parse_keys(const JsonCursor& root, Study& s) const override;
  Workload workload(const Study& s) const override;
  std::vector<Task> tasks(const Study& st) const override;
  std::vector<Task> extra_tasks(const Study& st) const override;
  std::vector<KindPlugin> plugins(const Study& st) const override;
  void plan(const Study& st, StudyPlan& plan, nlohmann::json& run) const override;
  void run_task(const RunUnit& unit, const Task& task, const std::filesystem::path& run_folder, TaskOutcome& out,
                std::atomic<long>* steps) const override;
  void reduce(Reduction& rd) const override;
  void report(std::ostream& out, const nlohmann::json& manifest) const override;
  void print_tables(const nlohmann::json& manifest) const override;
  std::map<std::string, double> cell_metrics(const nlohmann::json& manifest, const std::string& label) const override;
  ReportedNames planned_metrics(const RunUnit& unit, std::size_t i) const override;
};

}  // namespace dalembert
