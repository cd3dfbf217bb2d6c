#pragma once
// One integrator's entry of a manifest's "convergence" list, as every kind that fits orders writes
// it (convergence: the global error; linear_stability: the discrete eigenvalues' error): its ladder
// fitted (convergence_fit.hpp) and the fit held against the integrator's declared order.
#include <algorithm>
#include <cmath>
#include <dalembert/study/convergence_fit.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// `rows`: the ladder's rows as the kind records them. The fit agrees when it is within `tolerance`
/// of `declared`, or when every error lies at the round-off plateau (fewer than two points above it
/// and none above 100 `plateau`: the method is exact on this ladder, no order is contradicted).
inline nlohmann::json order_entry(const std::string& label, int declared, const std::vector<double>& h,
                                  const std::vector<double>& err, double plateau, double tolerance, nlohmann::json rows) {
  using json = nlohmann::json;
  const OrderFit fit = fit_order(h, err, plateau);
  const bool at_round_off = fit.points_used < 2 && !err.empty() && *std::max_element(err.begin(), err.end()) <= 100.0 * plateau;
  const bool fitted = std::isfinite(fit.order);
  const bool ok = at_round_off || (fitted && std::abs(fit.order - declared) <= tolerance);
  return {{"label", label},
          {"declared_order", declared},
          {"fitted_order", fitted ? json(fit.order) : json(nullptr)},
          {"successive_orders", fit.ratios},
          {"points_used", fit.points_used},
          {"used", fit.used},
          {"agrees", ok},
          {"status", at_round_off ? "round-off" : fitted ? "fitted" : "not enough points"},
          {"errors", std::move(rows)}};
}

}  // namespace dalembert
