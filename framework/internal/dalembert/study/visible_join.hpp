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
// synchronises with every one: a happens-before edge TSan sees. The start is the mirror image: a
// worker already alive from an earlier loop (the reduction's after the members') takes the task
// through libtbb alone, so each call first acquires a counter (global: reading it needs nothing of
// the caller's stack) the caller released after writing everything the body reads.
// It costs an atomic load and an increment per index.
#include <atomic>
#include <tbb/parallel_for.h>

namespace dalembert {

namespace visible_join_detail {
// Released by every loop's caller before it starts, acquired by every call of a body: a global, so
// that the acquire reads nothing of the caller's stack (the body's captures live there).
inline std::atomic<unsigned long> loops_started{0};
}  // namespace visible_join_detail

/// tbb::parallel_for(first, last, body) (index form, the caller's arena), starting and ending visibly.
template <class Index, class Body>
void parallel_for_visibly(Index first, Index last, const Body& body) {
  std::atomic<long> left{0};
  const auto call = [&](Index i) {
    (void)visible_join_detail::loops_started.load(std::memory_order_acquire);
    body(i);
    left.fetch_add(1, std::memory_order_release);
  };
  // The caller's writes so far (the body, `call` and its captures, their data) happen before each
  // call: released only now that `call` exists.
  visible_join_detail::loops_started.fetch_add(1, std::memory_order_release);
  tbb::parallel_for(first, last, call);
  (void)left.load(std::memory_order_acquire);
}

}  // namespace dalembert
