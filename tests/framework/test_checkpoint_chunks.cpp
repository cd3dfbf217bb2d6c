// The checkpoint's chunks (issue 32 item 4): a bounded number of files whatever the task count,
// chunk files read back whole (a failed task, a torn file, an older layout), and the reduction's
// parallel reading of them delivering every task once, in task order, at any thread count.
#include <catch2/catch.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/checkpoint.hpp>
#include <dalembert/study/reduce.hpp>

#include "temp_dir.hpp"  // tests/

namespace fs = std::filesystem;
using dalembert::Checkpoint;
using dalembert::ChunkPartition;
using dalembert::TaskOutcome;
using dalembert::test::read_text;
using dalembert::test::TempDir;
using dalembert::test::write_text;

namespace {

TaskOutcome member(std::size_t g, bool ok = true) {
  TaskOutcome o;
  o.ok = ok;
  o.error = ok ? "" : "task " + std::to_string(g) + " failed";
  o.ncol = 2;
  o.rows = {0.0, double(g), 1.0, double(g) + 0.5};
  o.summary = {{"final", double(g)}};
  o.initial.q = dalembert::Vec::Constant(3, double(g));
  o.initial.v = dalembert::Vec::Zero(3);
  o.final = o.initial;
  return o;
}

// Writes every chunk of `part`, task g's outcome being member(g).
void write_all(const Checkpoint& cp, const ChunkPartition& part) {
  for (std::size_t c = 0; c < part.chunks(); ++c) {
    std::vector<TaskOutcome> outs;
    for (std::size_t g = part.first(c); g < part.first(c) + part.size(c); ++g) outs.push_back(member(g));
    cp.write_chunk(c, part.first(c), outs);
  }
}

}  // namespace

TEST_CASE("chunk partition: at most 256 chunks, one task a chunk up to 256 tasks, every task once", "[checkpoint]") {
  for (std::size_t tasks : {std::size_t(1), std::size_t(7), std::size_t(256), std::size_t(257), std::size_t(1000),
                            std::size_t(10000), std::size_t(100000), std::size_t(1000000)}) {
    INFO(tasks << " tasks");
    const ChunkPartition part(tasks);
    CHECK(part.chunks() <= ChunkPartition::default_max_chunks);
    if (tasks <= ChunkPartition::default_max_chunks) CHECK(part.per_chunk == 1);
    std::size_t covered = 0;
    for (std::size_t c = 0; c < part.chunks(); ++c) {
      REQUIRE(part.first(c) == covered);
      REQUIRE(part.size(c) >= 1);
      covered += part.size(c);
    }
    CHECK(covered == tasks);
  }
  CHECK(ChunkPartition(1000).per_chunk == 4);
  CHECK(ChunkPartition(100000).per_chunk == 391);
}

TEST_CASE("chunk files: read back whole, and a failed task, a torn file or another layout is no completed chunk",
          "[checkpoint]") {
  TempDir dir("chunks");
  const Checkpoint cp(dir.path());
  cp.start({{"checkpoint", "test"}});
  cp.write_chunk(0, 0, {member(0), member(1), member(2)});
  cp.write_chunk(1, 3, {member(3), member(4, false), member(5)});
  CHECK(cp.completed(0, 0, 3));
  CHECK_FALSE(cp.completed(1, 3, 3));  // its header counts a failed task
  CHECK_FALSE(cp.completed(0, 0, 4));  // other tasks than asked
  CHECK_FALSE(cp.completed(2, 6, 3));  // absent
  const auto back = cp.read_chunk(1, 3, 3);
  REQUIRE(back.size() == 3);
  CHECK(back[0].rows == member(3).rows);
  CHECK(back[1].error == "task 4 failed");
  CHECK(back[2].initial.q == member(5).initial.q);

  SECTION("a torn file") {
    const std::string whole = read_text(cp.chunk_file(0));
    write_text(cp.chunk_file(0), whole.substr(0, whole.size() - 20));
    CHECK_FALSE(cp.completed(0, 0, 3));
    CHECK_THROWS_WITH(cp.read_chunk(0, 0, 3), Catch::Contains("is torn"));
  }
  SECTION("layout 2, an older dalembert's") {
    std::string text = read_text(cp.chunk_file(0));
    text[6] = '2';
    write_text(cp.chunk_file(0), text);
    CHECK_FALSE(cp.completed(0, 0, 3));
    CHECK_THROWS_WITH(cp.read_chunk(0, 0, 3), Catch::Contains("has layout 2, written by an older dalembert"));
  }
}

TEST_CASE("a checkpoint of an older layout is refused on resume, in one line naming it", "[checkpoint]") {
  TempDir dir("chunks_layout");
  const Checkpoint cp(dir.path());
  const nlohmann::json now = dalembert::task_fingerprint(nlohmann::json::array({{{"name", "s"}}}), nlohmann::json::array());
  nlohmann::json old = now;
  old.erase("checkpoint_layout");  // as the checkpoints of layout 2 were made
  cp.start(old);
  CHECK_THROWS_WITH(cp.matches(now, "s.json"),
                    Catch::Contains("cannot resume: ") && Catch::Contains("has checkpoint layout 2, written by an older dalembert"));
  cp.start(now);
  CHECK(cp.matches(now, "s.json"));
}

TEST_CASE("outcomes: every task once, in task order, from any range, at 1, 2 and 4 threads", "[checkpoint]") {
  TempDir dir("chunks_visit");
  const Checkpoint cp(dir.path());
  cp.start({{"checkpoint", "test"}});
  const ChunkPartition part(1000);  // 250 chunks of 4
  write_all(cp, part);
  for (int threads : {1, 2, 4}) {
    const dalembert::Outcomes outcomes{cp, part, {{7, "rank 1: disk full"}}, threads};
    for (auto [first, count] : {std::pair<std::size_t, std::size_t>{0, 1000}, {2, 1}, {3, 30}, {997, 3}}) {
      INFO(threads << " threads, tasks [" << first << ", " << first + count << ")");
      std::vector<std::size_t> seen;
      outcomes.visit(first, count, [&](std::size_t g, TaskOutcome& o) {
        seen.push_back(g);
        if (g / 4 == 7) {  // chunk 7 was lost
          CHECK_FALSE(o.ok);
          CHECK(o.error == "no result: rank 1: disk full");
        } else {
          CHECK(o.ok);
          CHECK(o.rows == member(g).rows);
        }
      });
      REQUIRE(seen.size() == count);
      for (std::size_t k = 0; k < count; ++k) REQUIRE(seen[k] == first + k);
    }
  }
}
