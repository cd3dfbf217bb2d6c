#pragma once
// Helpers for the seed-002 tests (spec 002, "Exact discrete nonholonomic mechanics").
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support.hpp"

namespace dalembert::test {

inline std::unique_ptr<System> system(const std::string& name, nlohmann::json params = nullptr) {
  return registry().make_system(name, params, "test");
}
inline std::unique_ptr<Integrator> integrator(const std::string& name, nlohmann::json params = nullptr) {
  return registry().make_integrator(name, params, "test");
}
inline const ConstrainedLagrangian& model(const System& s) { return dynamic_cast<const ConstrainedLagrangian&>(s); }

inline Vec vec(std::initializer_list<double> x) {
  return Eigen::Map<const Vec>(x.begin(), static_cast<Eigen::Index>(x.size()));
}

/// Index of a published discrete quantity.
inline int quantity(const Integrator& I, const std::string& name) {
  std::vector<std::string> names;
  I.quantity_names(names);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  throw std::runtime_error("no quantity " + name);
}

struct Run {
  std::vector<Vec> q;            // q_0 .. q_N
  std::vector<double> H;         // H_0 .. H_N (discrete energy)
  std::vector<double> omega;     // |ω(q_{k-1},q_k)|, k >= 1
  std::vector<double> matching;  // |π^−(q_k,q_{k+1}) − π_k|
  State last;
};

/// Steps `I` N times from s0 and records q, the discrete energy and residuals.
inline Run run(const System& sys, Integrator& I, State s, double h, long N) {
  I.bind(sys);
  I.begin(s);
  std::vector<std::string> names;
  I.quantity_names(names);
  std::vector<double> vals(names.size());
  const int iH = quantity(I, "discrete_energy"), iO = quantity(I, "discrete_constraint_residual");
  const int iM = names.size() > 2 && names[2] == "momentum_matching_residual" ? 2 : -1;
  Run r;
  r.q.push_back(s.q);
  I.discrete_quantities(vals.data());
  r.H.push_back(vals[iH]);
  for (long k = 0; k < N; ++k) {
    I.advance(s, h);
    I.discrete_quantities(vals.data());
    r.q.push_back(s.q);
    r.H.push_back(vals[iH]);
    r.omega.push_back(vals[iO]);
    if (iM >= 0) r.matching.push_back(vals[iM]);
    if (k == 0 && names.back() == "initial_discrete_energy") r.H[0] = vals.back();
  }
  r.last = s;
  return r;
}

/// The continuous flow by RK4 on the framework's nonholonomic field with `substeps` per unit time.
inline State reference_flow(const System& sys, State s, double T, long steps) {
  NonholonomicVectorField f;
  f.bind(model(sys));
  ExplicitRungeKutta rk(classical_rk4());
  rk.resize(static_cast<int>(s.q.size()), static_cast<int>(s.v.size()));
  const double dt = (T - s.t) / static_cast<double>(steps);
  for (long i = 0; i < steps; ++i) {
    rk.step([&f](double t, const Vec& q, const Vec& v, Vec& qd, Vec& vd) { f.evaluate(t, q, v, qd, vd); }, s.t, s.q,
            s.v, dt);
    s.t += dt;
  }
  s.t = T;
  return s;
}

/// Prints a measured number when ED_VERBOSE is set (the values quoted in reports).
inline double report(const std::string& what, double value) {
  if (std::getenv("ED_VERBOSE")) std::printf("MEASURED %-70s %.6e\n", what.c_str(), value);
  return value;
}

inline double order(double e_coarse, double e_fine, double ratio = 2.0) { return std::log(e_coarse / e_fine) / std::log(ratio); }

}  // namespace dalembert::test
