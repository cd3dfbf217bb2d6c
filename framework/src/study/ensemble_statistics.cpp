#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <limits>

namespace dalembert {

// Per recorded time r and column c (index r * nc + c): sums in member order, min, max, and
// (pass 2) the sum of squared deviations from the mean.
struct EnsembleStatistics::Moments {
  std::size_t rows = 0;
  std::vector<double> t, sum, lo, hi, dev2;
};

EnsembleStatistics::EnsembleStatistics(std::vector<std::string> columns, std::vector<double> quantiles)
    : columns_(std::move(columns)), quantiles_(std::move(quantiles)) {}

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

EnsembleStatistics::Moments EnsembleStatistics::moments(const MemberSource& source, std::size_t members) const {
  const std::size_t nc = columns_.size();
  Moments m;
  m.rows = std::numeric_limits<std::size_t>::max();
  std::size_t seen = 0;
  source([&](std::size_t, const double* rows, std::size_t nrows) {  // pass 1: sums, extremes
    if (seen++ == 0) {
      m.t.resize(nrows);
      for (std::size_t r = 0; r < nrows; ++r) m.t[r] = rows[r * nc];
      m.sum.assign(nrows * nc, 0.0);
      m.lo.assign(rows, rows + nrows * nc);
      m.hi = m.lo;
    }
    m.rows = std::min(m.rows, nrows);
    const std::size_t n = std::min(nrows, m.t.size()) * nc;
    for (std::size_t i = 0; i < n; ++i) {
      m.sum[i] += rows[i];
      m.lo[i] = std::min(m.lo[i], rows[i]);
      m.hi[i] = std::max(m.hi[i], rows[i]);
    }
  });
  if (seen != members) throw Error("ensemble statistics: " + std::to_string(seen) + " of " + std::to_string(members) + " members");
  if (members == 0) m.rows = 0;
  const double n = static_cast<double>(members);
  m.dev2.assign(m.rows * nc, 0.0);
  source([&](std::size_t, const double* rows, std::size_t) {  // pass 2: squared deviations
    for (std::size_t i = 0; i < m.rows * nc; ++i) {
      const double d = rows[i] - m.sum[i] / n;
      m.dev2[i] += d * d;
    }
  });
  return m;
}

// The quantiles of every column at times [r0, r1), from every member's values there, for blocks
// of times that fit the budget.
void EnsembleStatistics::add_quantiles(const MemberSource& source, std::size_t members, std::size_t budget_bytes,
                                       std::vector<std::vector<double>>& out) const {
  const std::size_t nc = columns_.size(), rows = out.size();
  const std::size_t per_time = std::max<std::size_t>(1, members * (nc - 1) * sizeof(double));
  const std::size_t block = std::max<std::size_t>(1, budget_bytes / per_time);
  const std::size_t width = 4 + quantiles_.size();
  std::vector<double> values;
  for (std::size_t r0 = 0; r0 < rows; r0 += block) {
    const std::size_t r1 = std::min(rows, r0 + block);
    values.assign((r1 - r0) * (nc - 1) * members, 0.0);  // [time][column][member]
    source([&](std::size_t member, const double* data, std::size_t) {
      for (std::size_t r = r0; r < r1; ++r)
        for (std::size_t c = 1; c < nc; ++c) values[((r - r0) * (nc - 1) + (c - 1)) * members + member] = data[r * nc + c];
    });
    for (std::size_t r = r0; r < r1; ++r)
      for (std::size_t c = 1; c < nc; ++c) {
        double* v = values.data() + ((r - r0) * (nc - 1) + (c - 1)) * members;
        std::sort(v, v + members);
        for (std::size_t k = 0; k < quantiles_.size(); ++k) {
          const double pos = quantiles_[k] * static_cast<double>(members - 1);
          const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
          const std::size_t hi = std::min(lo + 1, members - 1);
          out[r][1 + (c - 1) * width + 4 + k] = v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
        }
      }
  }
}

std::vector<std::vector<double>> EnsembleStatistics::statistics(const MemberSource& source, std::size_t members,
                                                                std::size_t budget_bytes) const {
  const std::size_t nc = columns_.size();
  const Moments m = moments(source, members);
  const std::size_t width = 4 + quantiles_.size();
  const double n = static_cast<double>(members);
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
  if (!quantiles_.empty() && members > 0) add_quantiles(source, members, budget_bytes, out);
  return out;
}

void EnsembleStatistics::write_statistics(const MemberSource& source, std::size_t members, const std::filesystem::path& file,
                                          std::size_t budget_bytes) const {
  const auto rows = statistics(source, members, budget_bytes);
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
