// The MPI backend of Cluster (issue 16): compiled when CMake finds MPI (Debian's OpenMPI).
//
// Only each rank's main thread calls MPI (MPI_THREAD_FUNNELED); it never blocks in MPI (OpenMPI's
// blocking calls spin a core): it tests and sleeps a millisecond, so that the rank's TBB threads
// keep the cores. Protocol: a worker rank asks rank 0 for a chunk whenever one of its threads is
// idle (request carries the steps and tasks done since the last message), rank 0 answers with a
// chunk index or -1 (no more); failures travel as text; a rank that has nothing left says done.
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/warn_once.hpp>
#include <dalembert/study/execution.hpp>
#include <dalembert/study/progress_meter.hpp>
#include <deque>
#include <mpi.h>
#include <mutex>
#include <optional>
#include <thread>

namespace dalembert {

namespace {

enum Tag : int { request = 11, assign = 12, failure = 13, done = 14 };

void nap() { std::this_thread::sleep_for(std::chrono::microseconds(200)); }

// Chunks a rank keeps waiting beyond its idle threads, so that a thread that finishes one finds
// the next without waiting for a reply from rank 0 (measured: without it, rank 1's thread idled
// for each request, and 2 ranks x 1 thread took 1.31x the time of 1 process x 2 threads).
constexpr long prefetch = 1;

// Waits for a nonblocking operation without spinning a core.
void wait(MPI_Request& r) {
  for (int flag = 0;;) {
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    nap();
  }
}

// The chunks a rank's threads take, filled by its main thread.
class LocalQueue {
 public:
  void push(std::size_t c) {
    {
      std::lock_guard<std::mutex> lock(m_);
      q_.push_back(c);
    }
    cv_.notify_one();
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(m_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  // The next chunk; nothing once the queue is closed and empty. A thread waiting here is idle.
  std::optional<std::size_t> pop() {
    std::unique_lock<std::mutex> lock(m_);
    ++idle_;
    cv_.wait(lock, [this] { return !q_.empty() || closed_; });
    --idle_;
    if (q_.empty()) return std::nullopt;
    const std::size_t c = q_.front();
    q_.pop_front();
    return c;
  }
  // Threads waiting for a chunk, less the chunks already waiting for them.
  long wanted() {
    std::lock_guard<std::mutex> lock(m_);
    return static_cast<long>(idle_) - static_cast<long>(q_.size());
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::size_t> q_;
  std::size_t idle_ = 0;
  bool closed_ = false;
};

// This rank's threads: take chunks from the queue until it closes; failures are collected.
class Workers {
 public:
  Workers(int threads, const std::function<void(std::size_t)>& run, int rank) {
    thread_ = std::thread([this, threads, &run, rank] {
      parallel_indices(threads, static_cast<std::size_t>(threads > 0 ? threads : std::thread::hardware_concurrency()),
                       [&](std::size_t) {
                         while (auto c = queue.pop()) {
                           try {
                             run(*c);
                           } catch (const std::exception& e) {
                             add_failure({*c, rank, e.what()});
                           } catch (...) {
                             add_failure({*c, rank, "an exception that is not a std::exception"});
                           }
                         }
                       });
      finished = true;
    });
  }
  ~Workers() {
    queue.close();
    if (thread_.joinable()) thread_.join();
  }
  std::vector<ChunkFailure> take_failures() {
    std::lock_guard<std::mutex> lock(m_);
    return std::exchange(failures_, {});
  }
  LocalQueue queue;
  std::atomic<bool> finished{false};

 private:
  void add_failure(ChunkFailure f) {
    std::lock_guard<std::mutex> lock(m_);
    failures_.push_back(std::move(f));
  }
  std::mutex m_;
  std::vector<ChunkFailure> failures_;
  std::thread thread_;
};

class MpiCluster final : public Cluster {
 public:
  MpiCluster() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (provided < MPI_THREAD_FUNNELED) throw Error("the MPI library does not support MPI_THREAD_FUNNELED");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (rank_ != 0) mute_warnings();  // rank 0 warns for the job (every rank runs the same study)
  }
  ~MpiCluster() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<ChunkFailure> execute(const std::vector<std::size_t>& order, int threads,
                                    const std::function<void(std::size_t)>& run, ProgressMeter& progress,
                                    bool serial) override {
    if (serial) threads = 1;
    return rank_ == 0 ? serve(order, threads, run, progress, serial) : work(threads, run, progress);
  }

  bool all(bool ok) override {
    int in = ok ? 1 : 0, out = 0;
    MPI_Request r;
    MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &r);
    wait(r);
    return out == 1;
  }

  long broadcast(long value) override {
    MPI_Request r;
    MPI_Ibcast(&value, 1, MPI_LONG, 0, MPI_COMM_WORLD, &r);
    wait(r);
    return value;
  }

 private:
  // Rank 0: hands out chunks in order to its own threads and to every rank that asks.
  // `serial`: every other rank is told at once that there is nothing for it.
  std::vector<ChunkFailure> serve(const std::vector<std::size_t>& order, int threads,
                                  const std::function<void(std::size_t)>& run, ProgressMeter& progress, bool serial) {
    std::vector<ChunkFailure> failures;
    std::size_t next = 0;
    int ranks_done = 0;
    Workers local(threads, run, 0);
    for (;;) {
      bool busy = false;
      for (int flag = 1; flag;) {
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) break;
        busy = true;
        receive(st, serial ? order.size() : next, order, next, ranks_done, failures, progress);
      }
      for (long w = local.queue.wanted() + prefetch; w > 0 && next < order.size(); --w) local.queue.push(order[next++]);
      if (next == order.size()) local.queue.close();
      if (local.finished && ranks_done == size_ - 1) break;
      if (!busy) nap();
    }
    for (auto& f : local.take_failures()) failures.push_back(std::move(f));
    return failures;
  }

  // `offer`: the next chunk another rank may take (order.size(): none).
  void receive(const MPI_Status& st, std::size_t offer, const std::vector<std::size_t>& order, std::size_t& next,
               int& ranks_done, std::vector<ChunkFailure>& failures, ProgressMeter& progress) {
    const int from = st.MPI_SOURCE;
    if (st.MPI_TAG == request || st.MPI_TAG == done) {
      long counts[2];
      MPI_Recv(counts, 2, MPI_LONG, from, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      progress.steps += counts[0];
      progress.tasks += counts[1];
      if (st.MPI_TAG == done) {
        ++ranks_done;
        return;
      }
      long c = offer < order.size() ? static_cast<long>(order[next++]) : -1;
      MPI_Send(&c, 1, MPI_LONG, from, assign, MPI_COMM_WORLD);  // small: buffered eagerly
    } else if (st.MPI_TAG == failure) {
      int n = 0;
      MPI_Get_count(&st, MPI_CHAR, &n);
      std::string text(static_cast<std::size_t>(n), '\0');
      MPI_Recv(text.data(), n, MPI_CHAR, from, failure, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const std::size_t colon = text.find(':');
      failures.push_back({std::stoul(text.substr(0, colon)), from, text.substr(colon + 1)});
    }
  }

  // Any other rank: asks rank 0 for a chunk whenever one of its threads is idle.
  std::vector<ChunkFailure> work(int threads, const std::function<void(std::size_t)>& run, ProgressMeter& progress) {
    Workers local(threads, run, rank_);
    long sent_steps = 0, sent_tasks = 0;
    auto counts = [&](long* out) {
      const long s = progress.steps.load(), t = progress.tasks.load();
      out[0] = s - sent_steps;
      out[1] = t - sent_tasks;
      sent_steps = s, sent_tasks = t;
    };
    bool exhausted = false;
    while (!exhausted) {
      send_failures(local);
      if (local.queue.wanted() + prefetch <= 0) {
        nap();
        continue;
      }
      long msg[2];
      counts(msg);
      MPI_Request r[2];
      long c = -1;
      MPI_Isend(msg, 2, MPI_LONG, 0, request, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv(&c, 1, MPI_LONG, 0, assign, MPI_COMM_WORLD, &r[1]);
      wait(r[0]);
      wait(r[1]);
      if (c < 0) exhausted = true;
      else local.queue.push(static_cast<std::size_t>(c));
    }
    local.queue.close();
    while (!local.finished) nap();
    send_failures(local);
    long msg[2];
    counts(msg);
    MPI_Request r;
    MPI_Isend(msg, 2, MPI_LONG, 0, done, MPI_COMM_WORLD, &r);
    wait(r);
    return {};
  }

  void send_failures(Workers& local) {
    for (const auto& f : local.take_failures()) {
      std::string text = std::to_string(f.chunk) + ":" + f.error;
      MPI_Request r;
      MPI_Isend(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, failure, MPI_COMM_WORLD, &r);
      wait(r);
    }
  }

  int rank_ = 0, size_ = 1;
};

// Launched by mpirun (OpenMPI, MPICH) or srun: the launcher's environment says so.
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace

bool built_with_mpi() { return true; }

Cluster& process_cluster() {
  static const std::unique_ptr<Cluster> cluster =
      launched_by_mpi() ? std::unique_ptr<Cluster>(std::make_unique<MpiCluster>()) : local_cluster();
  return *cluster;
}

}  // namespace dalembert
