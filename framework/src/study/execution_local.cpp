#include <atomic>
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

void parallel_indices(int threads, std::size_t n, const std::function<void(std::size_t)>& body) {
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
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
