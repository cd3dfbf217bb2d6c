#include <atomic>
#include <map>
#include <memory>
#include <dalembert/study/execution.hpp>
#include <dalembert/study/progress_meter.hpp>
#include <dalembert/study/visible_join.hpp>
#include <mutex>
#include <tbb/task_arena.h>
#include <unistd.h>

namespace dalembert {

std::string Cluster::host() const {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

namespace {

// One arena per thread count for the whole process, never destroyed. An arena made and destroyed
// per call (as before) lets the next call's arena be allocated over the memory where a worker of
// the previous one was still leaving: libtbb orders the two internally, which ThreadSanitizer
// cannot see (it reported the new arena's memset against the old worker's read, CI 2026-12-07),
// and each arena costs its set-up again. Reused, there is nothing to reallocate.
tbb::task_arena& arena_for(int threads) {
  static std::mutex m;
  static auto* arenas = new std::map<int, std::unique_ptr<tbb::task_arena>>();  // outlives every caller
  std::lock_guard<std::mutex> lock(m);
  std::unique_ptr<tbb::task_arena>& a = (*arenas)[threads];
  const int concurrency = threads > 0 ? threads : int{tbb::task_arena::automatic};
  if (!a) a = std::make_unique<tbb::task_arena>(concurrency);
  return *a;
}

}  // namespace

void parallel_indices(int threads, std::size_t n, const std::function<void(std::size_t)>& body) {
  if (n == 0) return;
  tbb::task_arena& arena = arena_for(threads);
  std::atomic<std::size_t> next{0};
  // One index at a time (not contiguous ranges split between threads): the last thread to finish
  // ends at most one index after the others.
  arena.execute([&] {
    parallel_for_visibly(0, arena.max_concurrency(), [&](int) {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i);
    });
  });
}

namespace {

class LocalCluster final : public Cluster {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<ChunkFailure> execute(const std::vector<std::size_t>& order, int threads,
                                    const std::function<void(std::size_t)>& run, ProgressMeter&, bool serial) override {
    std::vector<ChunkFailure> failures;
    std::mutex m;
    parallel_indices(serial ? 1 : threads, order.size(), [&](std::size_t i) {
      try {
        run(order[i]);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(m);
        failures.push_back({order[i], 0, e.what()});
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        failures.push_back({order[i], 0, "an exception that is not a std::exception"});
      }
    });
    return failures;
  }
  bool all(bool ok) override { return ok; }
  long broadcast(long value) override { return value; }
};

}  // namespace

std::unique_ptr<Cluster> local_cluster() { return std::make_unique<LocalCluster>(); }

#ifndef DALEMBERT_WITH_MPI
bool built_with_mpi() { return false; }
Cluster& process_cluster() {
  static const std::unique_ptr<Cluster> local = local_cluster();
  return *local;
}
#endif

}  // namespace dalembert
