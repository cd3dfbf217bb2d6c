#pragma once
// The reduction of a run (issue 16): from the checkpoint's task outcomes, read in task order one
// chunk at a time, to a unit's files and manifest — the task list, a convergence study's table and
// fitted orders, an ensemble's statistics (streamed, see EnsembleStatistics), initial states,
// per-member summaries and members' rows. Reads files only, so it does not depend on which rank or
// thread ran a task.
#include <dalembert/study/checkpoint.hpp>
#include <dalembert/study/run_units.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// The outcomes of a run's tasks, in its checkpoint.
struct Outcomes {
  const Checkpoint& checkpoint;
  ChunkPartition partition;
  std::map<std::size_t, std::string> lost;  // chunks whose run threw before its outcomes were kept
  int threads = 1;                           // that read and decode chunks (0: all cores)
  /// f(g, outcome) for the tasks g in [first, first + count), in order; a task without a kept
  /// outcome arrives as a failed one naming why. Chunks are read and decoded `threads` at a time
  /// in parallel (a few per thread held at once); f runs on the calling thread, in task order.
  void visit(std::size_t first, std::size_t count, const std::function<void(std::size_t, TaskOutcome&)>& f) const;
  /// Every task in [first, first + count) has an outcome without error: the chunks' headers say
  /// so (read `threads` at a time; no task is decoded).
  bool all_ok(std::size_t first, std::size_t count) const;
};

/// What a unit's reduction works with (StudyKind::reduce): the unit, its outcomes and folder, and
/// the manifest and file index it is writing.
struct Reduction {
  const RunUnit& unit;
  const Outcomes& outcomes;
  std::filesystem::path dir;  // the unit's folder
  bool verbose = false;
  std::vector<TaskOutcome> results;  // every task's outcome but ensemble members' (theirs: outcomes.visit)
  nlohmann::json manifest, files = nlohmann::json::array();
  std::vector<std::string> non_finite;  // "label (h = ...): name = nan" of every non-finite summary
  void note_non_finite(const Task& t, const TaskOutcome& r);
};

struct UnitResult {
  nlohmann::json manifest;  // without claims, figures and report: the runner adds them
  std::string errors;       // the first three failed tasks, then a count ("" when all ran)
  long failed = 0;
};

/// Writes a unit's files into run_folder/unit.folder and returns its manifest.
UnitResult reduce_unit(const RunUnit& unit, const Outcomes& outcomes, const std::filesystem::path& run_folder, bool verbose);

}  // namespace dalembert
