#pragma once
// Per-time statistics across the members of an ensemble: every member records the same columns
// at the same times; for each time and column: mean, population variance, min, max and chosen
// quantiles (linear interpolation between order statistics). Computed in member order, so the
// result does not depend on which thread ran which member. The times are independent of each
// other and are computed and formatted in parallel, on the threads of the caller's TBB task arena.
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
  /// The columns of write_members' file: member, then `columns`.
  static std::vector<std::string> member_columns(const std::vector<std::string>& columns);
  /// The text of write_members' rows of one member (`rows` as given to add_member, `ncol`
  /// values a row), so that a member can format its own rows on its own thread as soon as it
  /// finishes (see OrderedCsvWriter).
  static std::string member_rows_text(std::size_t member, const std::vector<double>& rows, std::size_t ncol);

 private:
  std::size_t common_rows() const;
  std::vector<double> statistics_row(std::size_t r) const;
  std::vector<std::string> columns_;
  std::vector<double> quantiles_;
  std::vector<std::vector<double>> members_;
};

}  // namespace dalembert
