#pragma once
// Per-time statistics across the members of an ensemble: every member records the same columns
// at the same times; for each time and column: mean, population variance, min, max and chosen
// quantiles (linear interpolation between order statistics). Computed in member order, so the
// result does not depend on which thread ran which member.
#include <boost/config.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE EnsembleStatistics {
 public:
  /// `columns` are the recorded columns ("t" first); `quantiles` in [0, 1].
  EnsembleStatistics(std::vector<std::string> columns, std::vector<double> quantiles);

  /// The rows one member recorded (row-major, columns().size() values per row).
  void add_member(std::vector<double> rows);
  std::size_t members() const { return members_.size(); }

  /// Names of the statistics columns: t, then <c>_mean, <c>_var, <c>_min, <c>_max, <c>_q<p>...
  std::vector<std::string> statistics_columns() const;
  /// One row per recorded time (rows that not every member reached are left out).
  std::vector<std::vector<double>> statistics() const;

  void write_statistics(const std::filesystem::path& file) const;
  /// Tidy form of every member's rows: member, t, columns...
  void write_members(const std::filesystem::path& file) const;

 private:
  std::vector<std::string> columns_;
  std::vector<double> quantiles_;
  std::vector<std::vector<double>> members_;
};

}  // namespace dalembert
