#pragma once
// The checkpoint of a run (issue 16): what every finished task produced, kept in the staging
// folder (NAME.incomplete/checkpoint/) as the tasks finish, so that `dalembert run --resume`
// after a kill, a node failure or a job's time limit recomputes only the tasks that are missing.
//
// Tasks are grouped in chunks of consecutive tasks (the unit of scheduling and of checkpoint
// files); the partition depends on the task count alone, never on ranks or threads, so a run may
// be resumed with any number of either. A chunk file is written whole (FILE.part, then renamed)
// and carries a checksum: a torn or foreign file is not a completed chunk.
//
// checkpoint/study.json records what the tasks depend on (the study as run, minus what only the
// reduction reads: figures, claims, description), the source revision and, by content, the code
// that ran: the SHA-256 of libdalembert and of every plugin file loaded (study/provenance.hpp); a
// resume against a different one is refused, naming the first differences (a rebuilt plugin: its
// name and both hashes).
#include <boost/config.hpp>
#include <dalembert/core/state.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace dalembert {

/// What one task produced. Ensemble members also keep their recorded rows and initial state.
struct TaskOutcome {
  bool ok = false;
  std::string error;  // the task's one-line error when !ok
  double wall = 0.0;  // seconds
  State final, initial;
  std::vector<std::pair<std::string, double>> summary;
  std::size_t ncol = 0;       // values per recorded row
  std::vector<double> rows;   // ensemble members: the recorded rows, row-major
  std::vector<double> cpu;    // work_precision: the CPU time of each timed run (s)
};

/// Tasks [first(c), first(c) + size(c)) form chunk c. At most `max_chunks` chunks, so at most as
/// many checkpoint files: a run of up to 256 tasks (a convergence ladder, a sweep) has one task a
/// chunk, a larger ensemble chunks of ceil(tasks / 256) members. 256 chunks still give each of 32
/// workers (ranks x threads) 8 chunks to balance, while a run writes and reads at most 256 files.
struct ChunkPartition {
  static constexpr std::size_t default_max_chunks = 256;
  std::size_t tasks = 0, per_chunk = 1;
  explicit ChunkPartition(std::size_t task_count, std::size_t max_chunks = default_max_chunks);
  std::size_t chunks() const { return per_chunk ? (tasks + per_chunk - 1) / per_chunk : 0; }
  std::size_t first(std::size_t c) const { return c * per_chunk; }
  std::size_t size(std::size_t c) const;
};

class BOOST_SYMBOL_VISIBLE Checkpoint {
 public:
  /// The checkpoint folder of a staging folder.
  explicit Checkpoint(const std::filesystem::path& staging);
  const std::filesystem::path& folder() const { return dir_; }

  /// Records what the tasks depend on (a fresh run).
  void start(const nlohmann::json& fingerprint) const;
  /// A resume: true if a checkpoint exists and was made for `fingerprint`; an InputError naming
  /// the differences if it was made for another; false if there is none.
  bool matches(const nlohmann::json& fingerprint, const std::string& where) const;

  std::filesystem::path chunk_file(std::size_t c) const;
  /// Writes chunk c's outcomes whole; `first` is its first task.
  void write_chunk(std::size_t c, std::size_t first, const std::vector<TaskOutcome>& outcomes) const;
  /// Reads chunk c; an Error if it is missing, torn or not chunk c of `count` tasks from `first`.
  std::vector<TaskOutcome> read_chunk(std::size_t c, std::size_t first, std::size_t count) const;
  /// Chunk c is on disk, whole, and every one of its tasks finished without error (its header
  /// says so: no task is decoded).
  bool completed(std::size_t c, std::size_t first, std::size_t count) const;

 private:
  struct ChunkBytes;
  ChunkBytes read_bytes(std::size_t c, std::size_t first, std::size_t count) const;
  std::filesystem::path dir_;
};

/// What a run's tasks depend on: each unit's study as run (an array: one for a study, one per
/// cell for a sweep) without figures, claims and description; the source revision; the SHA-256
/// of libdalembert; and `plugins`, the plugin files loaded ([{kind, name, sha256}, ...]).
BOOST_SYMBOL_VISIBLE nlohmann::json task_fingerprint(const nlohmann::json& study_runs, const nlohmann::json& plugins);

}  // namespace dalembert
