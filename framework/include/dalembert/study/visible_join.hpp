#pragma once
// The end of a TBB parallel region, made visible to ThreadSanitizer (issue 12).
//
// When tbb::parallel_for returns, every task's writes are visible to the caller: TBB's join
// synchronises. But that synchronisation happens inside Debian's libtbb, which is not built with
// -fsanitize=thread, so TSan cannot see it and reports the caller's later use of the results — or
// of the stack memory the workers read (the loop bound, the captured references) — as races.
//
// Each worker body calls leave() as its last action, after its last access to shared data; the
// caller calls arrive() after the parallel_for returns. leave() is a release read-modify-write and
// all of them form one release sequence, so arrive()'s acquire load synchronises with every one:
// a happens-before edge TSan sees. It costs one atomic increment per body call.
#include <atomic>

namespace dalembert {

class VisibleJoin {
 public:
  void leave() { left_.fetch_add(1, std::memory_order_release); }
  void arrive() const { (void)left_.load(std::memory_order_acquire); }

 private:
  std::atomic<long> left_{0};
};

}  // namespace dalembert
