#pragma once
// Where a run's tasks execute (issue 16): the processes of one run — this process alone, or every
// rank of an MPI job (`mpirun -n R dalembert run ...`, or srun) — each with its own TBB threads.
//
// Work is handed out dynamically, one chunk of tasks at a time, to whichever thread of whichever
// rank is idle (rank 0 serves the requests from its main thread, which otherwise sleeps), in the
// order given: the runner puts the costliest chunks first, so that unequal tasks (a convergence
// ladder, a sweep across step sizes) balance. Every chunk's results are written to the run's
// checkpoint (a folder every rank sees) by the thread that ran it; rank 0 alone reduces them and
// writes the run's files, so the files do not depend on the number of ranks or threads.
#include <atomic>
#include <boost/config.hpp>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dalembert {

class ProgressMeter;

/// A chunk whose run threw (the chunk's own tasks record their errors in the checkpoint; this is
/// for what could not be recorded there, e.g. a full disk), with the rank that ran it.
struct ChunkFailure {
  std::size_t chunk = 0;
  int rank = 0;
  std::string error;
};

class BOOST_SYMBOL_VISIBLE Cluster {
 public:
  virtual ~Cluster() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// The name of this rank's host (for messages).
  virtual std::string host() const;

  /// Runs run(c) for every chunk c of `order` (rank 0's list counts; the others may pass an empty
  /// one) across every rank, `threads` threads per rank (0: all cores). Returns, on rank 0, the
  /// chunks whose run threw on any rank; `progress` (rank 0's) counts the steps and tasks of all.
  /// `serial`: one chunk at a time, on rank 0 (timed runs that must not disturb each other).
  virtual std::vector<ChunkFailure> execute(const std::vector<std::size_t>& order, int threads,
                                            const std::function<void(std::size_t)>& run, ProgressMeter& progress,
                                            bool serial = false) = 0;
  /// True on every rank if `ok` is true on every rank.
  virtual bool all(bool ok) = 0;
  /// Rank 0's value, on every rank (the others wait without spinning a core).
  virtual long broadcast(long value) = 0;
};

/// What an MPI job's other ranks throw when rank 0's run failed: rank 0 has reported why.
class BOOST_SYMBOL_VISIBLE FailedOnRank0 : public std::runtime_error {
 public:
  FailedOnRank0() : std::runtime_error("the run failed on rank 0 (its message is above)") {}
};

/// This process alone.
BOOST_SYMBOL_VISIBLE std::unique_ptr<Cluster> local_cluster();

/// The cluster this process belongs to: every rank of the MPI job when it was launched by mpirun
/// or srun and dalembert was built with MPI (MPI is initialised on first use), else this process.
BOOST_SYMBOL_VISIBLE Cluster& process_cluster();

/// Whether this build can run on MPI.
BOOST_SYMBOL_VISIBLE bool built_with_mpi();

/// Runs body(i) for i in [0, n) on `threads` threads (0: all cores), handing indices out one at a
/// time in order.
BOOST_SYMBOL_VISIBLE void parallel_indices(int threads, std::size_t n, const std::function<void(std::size_t)>& body);

}  // namespace dalembert
