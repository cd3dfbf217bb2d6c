#pragma once
// Parallel loops whose end ThreadSanitizer sees (issue 12). Every parallel region of the runner,
// the sweep and the ensemble statistics goes through parallel_for_visibly.
//
// When tbb::parallel_for returns, every task's writes are visible to the caller: TBB's join
// synchronises. But that synchronisation happens inside Debian's libtbb, which is not built with
// -fsanitize=thread, so TSan cannot see it and reports the caller's later use of the results — or
// of the stack memory the workers read (the loop bound, the captured references) — as races.
//
// Here each call of the body ends with a release increment, after its last access to shared
// data; all of them form one release sequence, so the caller's acquire load after the join
// synchronises with every one: a happens-before edge TSan sees. It costs one atomic increment
// per index.
#include <atomic>
#include <tbb/parallel_for.h>

namespace dalembert {

/// tbb::parallel_for(first, last, body) (index form, the caller's arena), ending visibly.
template <class Index, class Body>
void parallel_for_visibly(Index first, Index last, const Body& body) {
  std::atomic<long> left{0};
  tbb::parallel_for(first, last, [&](Index i) {
    body(i);
    left.fetch_add(1, std::memory_order_release);
  });
  (void)left.load(std::memory_order_acquire);
}

}  // namespace dalembert
