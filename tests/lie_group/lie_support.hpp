#pragma once
// Helpers for the seed-001 tests: plugin instances, manual stepping, the spec's setups.
#include <Eigen/Dense>
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <numbers>

#include "support.hpp"

namespace dalembert::test {

// Spec 001 §4.1 (sleigh) and §4.2 (snakeboard) initial states.
inline State sleigh_initial() { return make_state({0, 0, 0}, {0.25, -1, 0.075}); }
inline State snakeboard_initial(double I = 0.5) {
  const double phi = std::numbers::pi / 3, K = -1.0 - I * 2.5 * std::sin(2 * phi);
  return make_state({std::numbers::pi / 2, phi, 0, 0, 0}, {2.5, -0.02, std::tan(phi) * K / 2, -K / 2, 0});
}

struct Run {
  std::vector<State> states;                // q_0 … q_N with node velocities
  std::vector<std::vector<double>> quants;  // discrete quantities after step k (k = 1..N), index k−1
  std::vector<std::string> names;
  double q(std::size_t k, const std::string& name) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return quants.at(k).at(i);
    throw std::runtime_error("no quantity " + name);
  }
};

/// Steps integrator `integ` with params `params` on `system` N times with step h.
inline Run run(const System& sys, const std::string& integ, const nlohmann::json& params, State s, double h, int N) {
  auto in = registry().make_integrator(integ, params, "test");
  in->bind(sys);
  in->begin(s);
  Run r;
  in->quantity_names(r.names);
  r.states.push_back(s);
  for (int k = 0; k < N; ++k) {
    in->advance(s, h);
    r.states.push_back(s);
    r.quants.emplace_back(r.names.size());
    in->discrete_quantities(r.quants.back().data());
  }
  return r;
}

inline Mat mass_of(const System& sys, const Vec& q) {
  const auto& cl = dynamic_cast<const ConstrainedLagrangian&>(sys);
  Mat M(cl.dof(), cl.dof());
  cl.mass(q, M);
  return M;
}
inline Mat constraints_of(const System& sys, const Vec& q) {
  const auto& cl = dynamic_cast<const ConstrainedLagrangian&>(sys);
  Mat A(cl.num_constraints(), cl.dof());
  cl.constraint_matrix(q, A);
  return A;
}
/// Q = M⁻¹μᵀ(μM⁻¹μᵀ)⁻¹μ from constraint rows (spec §2.0, eq. 12).
inline Mat Q_rows(const Mat& M, const Mat& mu) {
  const Mat Minv = M.inverse();
  return Minv * mu.transpose() * (mu * Minv * mu.transpose()).inverse() * mu;
}
/// Q = Id − P, P = B_D(B_DᵀMB_D)⁻¹B_DᵀM from the Lie-group model's regular basis (spec §2.0).
inline Mat Q_basis(const System& sys, const Vec& q) {
  const auto& lm = dynamic_cast<const LieGroupModel&>(sys);
  const int n = lm.reduced_dim(), k = lm.shape_dim() + lm.num_symmetry_directions();
  Mat B(n, k), M(n, n);
  lie::distribution_basis(lm, q, B);
  lie::coordinate_mass(lm, q, M);
  return Mat::Identity(n, n) - B * (B.transpose() * M * B).inverse() * B.transpose() * M;
}

}  // namespace dalembert::test
