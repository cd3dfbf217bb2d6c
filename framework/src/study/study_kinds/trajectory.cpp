// Trajectory studies: every integrator run once from the initial state, its recorded rows in a
// trajectory file (trajectory_<label>.csv or .npy), its summaries in the manifest's task list.
#include <dalembert/study/study_kind.hpp>

namespace dalembert {

namespace {

class TrajectoryKind : public StudyKind {
 public:
  std::string name() const override { return "trajectory"; }
  bool writes_trajectories() const override { return true; }
  bool sweepable() const override { return true; }
  std::vector<std::string> figure_types() const override {
    return {"timeseries", "path", "summary", "snapshots", "impact_path", "table", "snapshot_panels", "overlay",
            "summary_panels", "animation"};
  }
  std::vector<std::string> claim_quantities() const override { return {"summary", "column"}; }
  void check_figure_columns(const Study& st, const std::vector<std::vector<std::string>>& columns) const override {
    check_recorded_figure_columns(st, columns);
  }
  void run_task(const RunUnit& unit, const Task& task, const std::filesystem::path& run_folder, TaskOutcome& out,
                std::atomic<long>* steps) const override {
    run_recorded(unit, task, run_folder, out, steps);
  }
};

}  // namespace

DALEMBERT_STUDY_KIND(TrajectoryKind)

}  // namespace dalembert
