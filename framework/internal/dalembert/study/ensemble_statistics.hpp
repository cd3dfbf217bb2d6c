#pragma once
// Per-time statistics across the members of an ensemble: every member records the same columns
// at the same times; for each time and column: mean, population variance, min, max and chosen
// quantiles (linear interpolation between order statistics).
//
// A streaming reduction (issue 16): the members are visited in member order, as often as needed,
// from wherever they are kept (the run's checkpoint on disk), so memory does not grow with the
// number of members: pass 1 sums, min and max; pass 2 the squared deviations from the mean; the
// quantiles, which need every member's value at a time, in blocks of times sized to a memory
// budget. Sums run in member order, so the result is the same bits for any rank or thread count.
#include <boost/config.hpp>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE EnsembleStatistics {
 public:
  /// `columns` are the recorded columns ("t" first); `quantiles` in [0, 1].
  EnsembleStatistics(std::vector<std::string> columns, std::vector<double> quantiles);

  /// Receives one member: its index, its rows (row-major, columns().size() values a row), rows.
  using MemberVisitor = std::function<void(std::size_t member, const double* rows, std::size_t nrows)>;
  /// Visits every member once, in member order; called once per pass.
  using MemberSource = std::function<void(const MemberVisitor&)>;

  /// Names of the statistics columns: t, then <c>_mean, <c>_var, <c>_min, <c>_max, <c>_q<p>...
  std::vector<std::string> statistics_columns() const;
  /// The suffix of quantile q's columns: "_q" and 100 q to 6 significant digits ("_q50", "_q2.5").
  static std::string quantile_suffix(double q);
  /// The statistics over the members of every task summary, in the manifest's
  /// "ensemble"[i]["summary"][NAME] and a sweep's <NAME>_<stat> columns: min, max, mean.
  static const std::vector<std::string>& summary_statistics();

  /// The statistics of `members` members, one row per recorded time (rows that not every member
  /// reached are left out); at most about `budget_bytes` of member values are held at once.
  std::vector<std::vector<double>> statistics(const MemberSource& source, std::size_t members,
                                              std::size_t budget_bytes = std::size_t(64) << 20) const;
  void write_statistics(const MemberSource& source, std::size_t members, const std::filesystem::path& file,
                        std::size_t budget_bytes = std::size_t(64) << 20) const;

  /// The columns of an ensemble's members file: member, then `columns`.
  static std::vector<std::string> member_columns(const std::vector<std::string>& columns);
  /// The text of one member's rows in that file.
  static std::string member_rows_text(std::size_t member, const double* rows, std::size_t nrows, std::size_t ncol);

 private:
  struct Moments;
  Moments moments(const MemberSource& source, std::size_t members) const;
  void add_quantiles(const MemberSource& source, std::size_t members, std::size_t budget_bytes,
                     std::vector<std::vector<double>>& out) const;
  std::vector<std::string> columns_;
  std::vector<double> quantiles_;
};

}  // namespace dalembert
