#pragma once
// Counts the process's heap allocations while `counting` is true (the integrator contract: no heap
// allocation inside step()). Include in exactly one translation unit of an executable — the
// `dalembert` program (for `dalembert check`) and the test executables that count: it defines the
// process-wide allocation hooks. HookedAllocationCounter hands them to the conformance suite
// (study/conformance.hpp).
//
// Plain build: this executable interposes malloc/calloc/realloc/aligned_alloc/posix_memalign (Eigen's
// dynamic-size storage uses std::malloc) and replaces the global operator new/delete; the plugins'
// and libdalembert's calls resolve to the executable's symbols.
// Sanitized build (ASan, TSan): the sanitizer runtime owns malloc — interposing it would hand the
// runtime blocks it did not allocate, and the executable crashed at start-up. Its allocator instead
// calls the hook installed here for every allocation (malloc, calloc, realloc, operator new, ...).
//
// DALEMBERT_ALLOC_TRACE=N prints the call stack of the first N counted allocations (stderr), to find
// the call site (addresses in plugins: addr2line -e PLUGIN.so -f -C OFFSET).
#include <atomic>
#include <dalembert/study/conformance.hpp>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <execinfo.h>
#include <mm_malloc.h>  // declares posix_memalign (throw()) before the definition below, as Eigen would
#include <new>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DALEMBERT_TEST_SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DALEMBERT_TEST_SANITIZED_ALLOCATOR 1
#endif
#endif

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

thread_local bool in_trace = false;
std::atomic<long> traced{0};
long trace_budget() {
  static const long n = [] {
    const char* e = std::getenv("DALEMBERT_ALLOC_TRACE");
    return e ? std::atol(e) : 0L;
  }();
  return n;
}
void trace_allocation() {
  in_trace = true;  // backtrace() may allocate: do not trace that
  ++traced;
  void* frames[32];
  const int k = backtrace(frames, 32);
  backtrace_symbols_fd(frames, k, 2);
  static const char sep[] = "----\n";
  (void)!write(2, sep, sizeof sep - 1);
  in_trace = false;
}
inline void count() {
  if (!counting.load(std::memory_order_relaxed)) return;
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (!in_trace && traced.load() < trace_budget()) trace_allocation();
}

/// The hooks below as the conformance suite's allocation counter.
class HookedAllocationCounter final : public dalembert::AllocationCounter {
 public:
  void begin() override {
    allocations = 0;
    counting = true;
  }
  long end() override {
    counting = false;
    return allocations.load();
  }
};
}  // namespace

#ifdef DALEMBERT_TEST_SANITIZED_ALLOCATOR
// From compiler-rt's <sanitizer/allocator_interface.h>, which GCC does not install; libasan and
// libtsan export it. Called for every allocation of the sanitizer's allocator.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, std::size_t),
                                                         void (*free_hook)(const volatile void*));

namespace {
void on_malloc(const volatile void*, std::size_t) { count(); }
void on_free(const volatile void*) {}
[[maybe_unused]] const int malloc_hook_slot = __sanitizer_install_malloc_and_free_hooks(&on_malloc, &on_free);
}  // namespace

#else
extern "C" void* __libc_malloc(std::size_t);
extern "C" void* __libc_calloc(std::size_t, std::size_t);
extern "C" void* __libc_realloc(void*, std::size_t);
extern "C" void* __libc_memalign(std::size_t, std::size_t);
extern "C" void __libc_free(void*);

extern "C" void* malloc(std::size_t n) {
  count();
  return __libc_malloc(n);
}
extern "C" void* calloc(std::size_t n, std::size_t m) {
  count();
  return __libc_calloc(n, m);
}
extern "C" void* realloc(void* p, std::size_t n) {
  count();
  return __libc_realloc(p, n);
}
extern "C" void* aligned_alloc(std::size_t a, std::size_t n) {
  count();
  return __libc_memalign(a, n);
}
extern "C" int posix_memalign(void** p, std::size_t a, std::size_t n) {
  count();
  *p = __libc_memalign(a, n);
  return *p ? 0 : ENOMEM;
}

// Global operator new/delete: counted, then malloc'd without counting twice.
void* operator new(std::size_t n) {
  count();
  if (void* p = __libc_malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  count();
  if (void* p = __libc_memalign(static_cast<std::size_t>(a), n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return ::operator new(n, a); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
#endif
