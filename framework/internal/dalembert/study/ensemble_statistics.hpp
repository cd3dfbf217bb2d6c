#pragma once
// Per-time statistics across the members of an ensemble: every member records the same columns
// at the same times; for each time and column: mean, population variance, min, max and chosen
// quantiles (linear interpolation between order statistics).
//
// A streaming reduction (issue 16): memory does not grow with the number of members. The members
// are added one by one in member order as the reduction reads them from the run's checkpoint (the
// pass that also writes their files): sums, min and max, and, when every member's values fit the
// memory budget, the values themselves, from which the squared deviations from the mean and the
// quantiles follow without reading the members again (issue 32). Otherwise `source` visits them
// again: once for the squared deviations, once per block of times sized to the budget for the
// quantiles. Every sum runs in member order, so the result is the same bits for any rank or
// thread count; the `threads` only share out the times (and columns) of the last steps.
#include <boost/config.hpp>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE EnsembleStatistics {
 public:
  /// `columns` are the recorded columns ("t" first); `quantiles` in [0, 1]; `members` the number
  /// of members add() will receive; at most about `budget_bytes` of member values are held at once.
  EnsembleStatistics(std::vector<std::string> columns, std::vector<double> quantiles, std::size_t members = 0,
                     int threads = 1, std::size_t budget_bytes = std::size_t(64) << 20);
  ~EnsembleStatistics();

  /// Receives one member: its index, its rows (row-major, columns().size() values a row), rows.
  using MemberVisitor = std::function<void(std::size_t member, const double* rows, std::size_t nrows)>;
  /// Visits every member once, in member order; called once per pass.
  using MemberSource = std::function<void(const MemberVisitor&)>;

  /// The next member's rows (members arrive in member order).
  void add(const double* rows, std::size_t nrows);

  /// Names of the statistics columns: t, then <c>_mean, <c>_var, <c>_min, <c>_max, <c>_q<p>...
  std::vector<std::string> statistics_columns() const;
  /// The suffix of quantile q's columns: "_q" and 100 q to 6 significant digits ("_q50", "_q2.5").
  static std::string quantile_suffix(double q);
  /// The statistics over the members of every task summary, in the manifest's
  /// "ensemble"[i]["summary"][NAME] and a sweep's <NAME>_<stat> columns: min, max, mean.
  static const std::vector<std::string>& summary_statistics();

  /// The statistics of the members added, one row per recorded time (rows that not every member
  /// reached are left out); `source` is read only for what the kept values cannot give.
  std::vector<std::vector<double>> statistics(const MemberSource& source);
  void write_statistics(const MemberSource& source, const std::filesystem::path& file);

  /// The columns of an ensemble's members file: member, then `columns`.
  static std::vector<std::string> member_columns(const std::vector<std::string>& columns);
  /// The text of one member's rows in that file.
  static std::string member_rows_text(std::size_t member, const double* rows, std::size_t nrows, std::size_t ncol);

 private:
  struct Moments;
  void first_member(const double* rows, std::size_t nrows);
  void squared_deviations(const MemberSource& source);
  void add_quantiles(const MemberSource& source, std::vector<std::vector<double>>& out) const;
  void block_quantiles(std::vector<double>& values, std::size_t r0, std::size_t r1,
                       std::vector<std::vector<double>>& out) const;
  std::vector<std::string> columns_;
  std::vector<double> quantiles_;
  std::size_t members_, budget_;
  int threads_;
  std::unique_ptr<Moments> m_;
};

}  // namespace dalembert
