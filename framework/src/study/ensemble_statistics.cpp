#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/study/execution.hpp>
#include <limits>

namespace dalembert {

// Per recorded time r and column c (index r * nc + c): sums in member order, min, max, and the
// sum of squared deviations from the mean; `values`, when every member's fit the budget: value
// [r][c - 1][member], as the quantiles want them.
struct EnsembleStatistics::Moments {
  std::size_t rows = std::numeric_limits<std::size_t>::max(), seen = 0;
  std::vector<double> t, sum, lo, hi, dev2, values;
  bool kept = false;
};

EnsembleStatistics::EnsembleStatistics(std::vector<std::string> columns, std::vector<double> quantiles, std::size_t members,
                                       int threads, std::size_t budget_bytes)
    : columns_(std::move(columns)),
      quantiles_(std::move(quantiles)),
      members_(members),
      budget_(budget_bytes),
      threads_(threads),
      m_(std::make_unique<Moments>()) {}

EnsembleStatistics::~EnsembleStatistics() = default;

std::vector<std::string> EnsembleStatistics::statistics_columns() const {
  std::vector<std::string> out = {"t"};
  for (std::size_t c = 1; c < columns_.size(); ++c) {
    for (const char* s : {"_mean", "_var", "_min", "_max"}) out.push_back(columns_[c] + s);
    for (double q : quantiles_) out.push_back(columns_[c] + quantile_suffix(q));
  }
  return out;
}

std::string EnsembleStatistics::quantile_suffix(double q) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_q%g", 100.0 * q);
  return buf;
}

const std::vector<std::string>& EnsembleStatistics::summary_statistics() {
  static const std::vector<std::string> stats = {"min", "max", "mean"};
  return stats;
}

// The first member sets the times; every member's values are kept if they fit the budget.
void EnsembleStatistics::first_member(const double* rows, std::size_t nrows) {
  const std::size_t nc = columns_.size();
  Moments& m = *m_;
  m.t.resize(nrows);
  for (std::size_t r = 0; r < nrows; ++r) m.t[r] = rows[r * nc];
  m.sum.assign(nrows * nc, 0.0);
  m.lo.assign(rows, rows + nrows * nc);
  m.hi = m.lo;
  const std::size_t per_time = std::max<std::size_t>(1, members_ * (nc - 1) * sizeof(double));
  m.kept = nrows <= std::max<std::size_t>(1, budget_ / per_time);
  if (m.kept) m.values.assign(nrows * (nc - 1) * members_, 0.0);
}

void EnsembleStatistics::add(const double* rows, std::size_t nrows) {
  const std::size_t nc = columns_.size();
  Moments& m = *m_;
  if (m.seen >= members_) throw Error("ensemble statistics: more than the " + std::to_string(members_) + " members announced");
  if (m.seen == 0) first_member(rows, nrows);
  m.rows = std::min(m.rows, nrows);
  const std::size_t kept_rows = std::min(nrows, m.t.size()), n = kept_rows * nc;
  for (std::size_t i = 0; i < n; ++i) {
    m.sum[i] += rows[i];
    m.lo[i] = std::min(m.lo[i], rows[i]);
    m.hi[i] = std::max(m.hi[i], rows[i]);
  }
  if (m.kept)
    for (std::size_t r = 0; r < kept_rows; ++r)
      for (std::size_t c = 1; c < nc; ++c) m.values[(r * (nc - 1) + (c - 1)) * members_ + m.seen] = rows[r * nc + c];
  ++m.seen;
}

// Per time and column, the squared deviations from the mean summed in member order: from the kept
// values (the times shared out between threads), else in one more pass over the members.
void EnsembleStatistics::squared_deviations(const MemberSource& source) {
  const std::size_t nc = columns_.size();
  Moments& m = *m_;
  const double n = static_cast<double>(members_);
  m.dev2.assign(m.rows * nc, 0.0);
  if (!m.kept) {
    source([&](std::size_t, const double* rows, std::size_t) {
      for (std::size_t i = 0; i < m.rows * nc; ++i) {
        const double d = rows[i] - m.sum[i] / n;
        m.dev2[i] += d * d;
      }
    });
    return;
  }
  parallel_indices(threads_, m.rows, [&](std::size_t r) {
    for (std::size_t c = 1; c < nc; ++c) {
      const std::size_t i = r * nc + c;
      const double* v = m.values.data() + (r * (nc - 1) + (c - 1)) * members_;
      for (std::size_t k = 0; k < members_; ++k) {
        const double d = v[k] - m.sum[i] / n;
        m.dev2[i] += d * d;
      }
    }
  });
}

// The quantiles of every column at times [r0, r1) from `values` ([time - r0][column - 1][member]),
// sorted in place; the times shared out between threads.
void EnsembleStatistics::block_quantiles(std::vector<double>& values, std::size_t r0, std::size_t r1,
                                         std::vector<std::vector<double>>& out) const {
  const std::size_t nc = columns_.size(), members = members_, width = 4 + quantiles_.size();
  parallel_indices(threads_, r1 - r0, [&](std::size_t dr) {
    const std::size_t r = r0 + dr;
    for (std::size_t c = 1; c < nc; ++c) {
      double* v = values.data() + (dr * (nc - 1) + (c - 1)) * members;
      std::sort(v, v + members);
      for (std::size_t k = 0; k < quantiles_.size(); ++k) {
        const double pos = quantiles_[k] * static_cast<double>(members - 1);
        const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
        const std::size_t hi = std::min(lo + 1, members - 1);
        out[r][1 + (c - 1) * width + 4 + k] = v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
      }
    }
  });
}

// The quantiles at every time: from the kept values, else from blocks of times that fit the
// budget, one pass over the members each.
void EnsembleStatistics::add_quantiles(const MemberSource& source, std::vector<std::vector<double>>& out) const {
  const std::size_t nc = columns_.size(), rows = out.size(), members = members_;
  if (m_->kept) return block_quantiles(m_->values, 0, rows, out);
  const std::size_t per_time = std::max<std::size_t>(1, members * (nc - 1) * sizeof(double));
  const std::size_t block = std::max<std::size_t>(1, budget_ / per_time);
  std::vector<double> values;
  for (std::size_t r0 = 0; r0 < rows; r0 += block) {
    const std::size_t r1 = std::min(rows, r0 + block);
    values.assign((r1 - r0) * (nc - 1) * members, 0.0);  // [time][column][member]
    source([&](std::size_t member, const double* data, std::size_t) {
      for (std::size_t r = r0; r < r1; ++r)
        for (std::size_t c = 1; c < nc; ++c) values[((r - r0) * (nc - 1) + (c - 1)) * members + member] = data[r * nc + c];
    });
    block_quantiles(values, r0, r1, out);
  }
}

std::vector<std::vector<double>> EnsembleStatistics::statistics(const MemberSource& source) {
  const std::size_t nc = columns_.size();
  Moments& m = *m_;
  if (m.seen != members_)
    throw Error("ensemble statistics: " + std::to_string(m.seen) + " of " + std::to_string(members_) + " members");
  if (members_ == 0) m.rows = 0;
  squared_deviations(source);
  const std::size_t width = 4 + quantiles_.size();
  const double n = static_cast<double>(members_);
  std::vector<std::vector<double>> out(m.rows, std::vector<double>(1 + (nc - 1) * width));
  for (std::size_t r = 0; r < m.rows; ++r) {
    out[r][0] = m.t[r];
    for (std::size_t c = 1; c < nc; ++c) {
      const std::size_t i = r * nc + c;
      double* cell = &out[r][1 + (c - 1) * width];
      cell[0] = m.sum[i] / n;
      cell[1] = m.dev2[i] / n;  // population variance (spec 000 §4, Fig 3 recipe)
      cell[2] = m.lo[i];
      cell[3] = m.hi[i];
    }
  }
  if (!quantiles_.empty() && members_ > 0) add_quantiles(source, out);
  return out;
}

void EnsembleStatistics::write_statistics(const MemberSource& source, const std::filesystem::path& file) {
  const auto rows = statistics(source);
  CsvWriter csv(file, statistics_columns());
  for (const auto& row : rows) csv.row(row.data());
  csv.close();
}

std::vector<std::string> EnsembleStatistics::member_columns(const std::vector<std::string>& columns) {
  std::vector<std::string> cols = {"member"};
  cols.insert(cols.end(), columns.begin(), columns.end());
  return cols;
}

std::string EnsembleStatistics::member_rows_text(std::size_t member, const double* rows, std::size_t nrows,
                                                 std::size_t ncol) {
  std::string text;
  std::vector<double> row(ncol + 1);
  row[0] = static_cast<double>(member);
  for (std::size_t r = 0; r < nrows; ++r) {
    std::copy(rows + r * ncol, rows + (r + 1) * ncol, row.begin() + 1);
    CsvWriter::format_row(text, row.data(), row.size());
  }
  return text;
}

}  // namespace dalembert
