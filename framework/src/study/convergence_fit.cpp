#include <algorithm>
#include <cmath>
#include <dalembert/study/convergence_fit.hpp>
#include <limits>
#include <numeric>

namespace dalembert {

OrderFit fit_order(const std::vector<double>& h_in, const std::vector<double>& err_in, double plateau) {
  const std::size_t n = h_in.size();
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return std::abs(h_in[a]) > std::abs(h_in[b]); });
  std::vector<double> h(n), e(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = std::abs(h_in[idx[i]]), e[i] = err_in[idx[i]];

  OrderFit fit;
  std::vector<bool> used(n);
  for (std::size_t i = 0; i < n; ++i) used[i] = std::isfinite(e[i]) && e[i] > plateau;
  for (std::size_t i = 0; i + 1 < n; ++i)
    fit.ratios.push_back(std::log(e[i] / e[i + 1]) / std::log(h[i] / h[i + 1]));
  // Fine-end stagnation: drop trailing points whose ratio collapsed relative to the coarse ones.
  if (fit.ratios.size() >= 2) {
    std::vector<double> r;
    for (double x : fit.ratios)
      if (std::isfinite(x)) r.push_back(x);
    if (!r.empty()) {
      std::nth_element(r.begin(), r.begin() + r.size() / 2, r.end());
      const double med = r[r.size() / 2];
      for (std::size_t i = fit.ratios.size(); i-- > 0;) {
        if (std::isfinite(fit.ratios[i]) && fit.ratios[i] >= 0.5 * med) break;
        used[i + 1] = false;
      }
    }
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!used[i]) continue;
    const double x = std::log(h[i]), y = std::log(e[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y, ++m;
  }
  fit.points_used = m;
  fit.order = m >= 2 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : std::numeric_limits<double>::quiet_NaN();
  fit.used.assign(n, false);
  for (std::size_t i = 0; i < n; ++i) fit.used[idx[i]] = used[i];
  return fit;
}

}  // namespace dalembert
