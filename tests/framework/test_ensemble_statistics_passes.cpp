// An ensemble's statistics are the same bits whether the members' values were kept in memory
// (one pass over the checkpoint) or streamed again from it (the squared deviations, then the
// quantiles in blocks of times), and at any thread count (issue 32 item 4).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <dalembert/study/ensemble_statistics.hpp>
#include <vector>

using dalembert::EnsembleStatistics;

namespace {

constexpr std::size_t members = 57, times = 9, ncol = 3;  // t and two columns

// Member m's rows; member 5 stops two times early (its last times are left out of the statistics).
std::vector<double> rows_of(std::size_t m) {
  const std::size_t n = m == 5 ? times - 2 : times;
  std::vector<double> rows;
  for (std::size_t r = 0; r < n; ++r) {
    rows.push_back(0.1 * double(r));
    rows.push_back(std::sin(1.7 * double(m) + 0.3 * double(r)) * 1e3 + 1e-7 * double(m));
    rows.push_back(std::exp(-0.01 * double(m * r)) - 0.5);
  }
  return rows;
}

std::vector<std::vector<double>> statistics(int threads, std::size_t budget_bytes) {
  EnsembleStatistics stats({"t", "x", "y"}, {0.05, 0.5, 0.95}, members, threads, budget_bytes);
  std::vector<std::vector<double>> all;
  for (std::size_t m = 0; m < members; ++m) all.push_back(rows_of(m));
  for (const auto& r : all) stats.add(r.data(), r.size() / ncol);
  const EnsembleStatistics::MemberSource source = [&](const EnsembleStatistics::MemberVisitor& f) {
    for (std::size_t m = 0; m < members; ++m) f(m, all[m].data(), all[m].size() / ncol);
  };
  return stats.statistics(source);
}

bool same_bits(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t r = 0; r < a.size(); ++r)
    if (a[r].size() != b[r].size() || std::memcmp(a[r].data(), b[r].data(), a[r].size() * sizeof(double)) != 0) return false;
  return true;
}

}  // namespace

TEST_CASE("ensemble statistics: values kept in memory or streamed again, 1 or 2 threads: the same bits",
          "[ensemble_statistics]") {
  const auto kept = statistics(1, std::size_t(64) << 20);
  REQUIRE(kept.size() == times - 2);  // the times every member reached
  CHECK(kept[0].size() == 1 + 2 * (4 + 3));
  CHECK(same_bits(kept, statistics(2, std::size_t(64) << 20)));
  CHECK(same_bits(kept, statistics(1, 1)));  // one time a block: every pass streamed
  CHECK(same_bits(kept, statistics(2, members * 2 * sizeof(double) * 3)));  // blocks of 3 times
  // The mean is the member-order sum over n; the median the middle member's value.
  double sum = 0.0;
  std::vector<double> x;
  for (std::size_t m = 0; m < members; ++m) sum += rows_of(m)[3 * 4 + 1], x.push_back(rows_of(m)[3 * 4 + 1]);
  std::sort(x.begin(), x.end());
  CHECK(kept[4][1] == sum / double(members));
  CHECK(kept[4][1 + 4 + 1] == x[members / 2]);
}

TEST_CASE("ensemble statistics: a member more than announced is an error naming the count", "[ensemble_statistics]") {
  EnsembleStatistics stats({"t", "x"}, {}, 1);
  const double rows[] = {0.0, 1.0};
  stats.add(rows, 1);
  CHECK_THROWS_WITH(stats.add(rows, 1), Catch::Contains("more than the 1 members announced"));
}
