#pragma once
// Fitting the order of convergence from an error ladder: least squares of log(err) on log(h)
// over the points above the round-off plateau, plus the successive log-ratios.
#include <boost/config.hpp>
#include <vector>

namespace dalembert {

struct OrderFit {
  double order = 0.0;           // least-squares slope over the used points (NaN if < 2 points)
  std::vector<double> ratios;   // log(e_i/e_{i+1}) / log(h_i/h_{i+1}) for successive points
  std::vector<bool> used;       // which points entered the fit
  int points_used = 0;
};

/// `h` and `err` in the same order (any). A point is masked when its error is below `plateau`
/// or, at the fine end, when the error has stopped decreasing (ratio below 0.5 of the
/// median ratio: round-off has taken over).
BOOST_SYMBOL_VISIBLE OrderFit fit_order(const std::vector<double>& h, const std::vector<double>& err, double plateau);

}  // namespace dalembert
