#pragma once
// RKMK4 on an L-and-A model whose coordinates hold unit quaternions (core/unit_quaternions.hpp):
// the rolling bodies of issue 29 (q = (x, y, p), g = |p|² − 1). The configuration space is taken as
// the product group Rᵏ × S³ × …, S³ the unit quaternions (the double cover of SO(3)) acting on the
// right, Rᵏ the other coordinates acting by addition; the classical RK4 tableau is lifted to it by
// Munthe-Kaas' method (Appl. Numer. Math. 29 (1999) 115–127, Algorithm 1), as for the Lie-group
// models in rkmk4.cpp. With Ω = 2G(p)ṗ the body angular velocity and the continuous constrained
// field (ë, p̈) = f(t, q, v) of the model (core/nonholonomic_field.hpp), write
// p(t_n + τ) = p_n ⊗ exp(u(τ)), u̇ = dexp⁻¹_{−u}(Ω), and Ω̇ = 2G(p)p̈ (the term 2Ġṗ vanishes: Ġ(ṗ)ṗ = 0
// for any ṗ, since G(a)a = 0). Stages i = 1..4, c = (0, ½, ½, 1):
//     u_i = h c_i K_{i−1},  Ω_i = Ω_n + h c_i W_{i−1},  p_i = p_n ⊗ exp(u_i),  ṗ_i = ½G(p_i)ᵀΩ_i,
//     e_i = e_n + h c_i ė_{i−1},  ė_i = ė_n + h c_i ë_{i−1}     (the other coordinates),
//     (ë_i, p̈_i) = f(t_n + c_i h, (e_i, p_i), (ė_i, ṗ_i)),  K_i = dexp⁻¹_{−u_i}(Ω_i),  W_i = 2G(p_i)p̈_i,
//     p_{n+1} = p_n ⊗ exp(h Σ b_i K_i),  Ω_{n+1} = Ω_n + h Σ b_i W_i,  ṗ_{n+1} = ½G(p_{n+1})ᵀΩ_{n+1},
// b = (1, 2, 2, 1)/6. Order 4 (Munthe-Kaas 1999, Theorem 1); |p| = 1 to round-off by construction
// (each product is renormalised, math/so3_group.hpp) and p·ṗ = 0 exactly (G(p)ᵀΩ ⊥ p); the rolling
// constraints A(q)v = 0 and any other g(q) = 0 drift at O(h⁴) as under rk4.
#include <Eigen/Core>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/schemes/open_integrator.hpp>
#include <vector>

namespace dalembert::rkmk4 {

class OnUnitQuaternions final : public OpenIntegrator {
 public:
  void bind(const System& s) override;
  void step(State& s, double h) override;
  Traits traits() const override { return {4, false, true, {}}; }

 private:
  using Algebras = Eigen::Matrix<double, 3, Eigen::Dynamic>;  // one column per quaternion
  void stage(const State& s, int i, double h);
  void read_offsets(const System& s);

  const ConstrainedLagrangian* model_ = nullptr;
  NonholonomicVectorField field_;
  std::vector<int> offsets_, euclidean_;  // each quaternion's p0; every other coordinate
  Vec qs_, vs_, qdot_, vdot_;
  Mat edot_, eddot_;                 // n × 4: the stages' ė and ë (euclidean rows used)
  Algebras omega0_, K_[4], W_[4];    // Ω_n; the stages' dexp⁻¹(Ω) and Ω̇
};

}  // namespace dalembert::rkmk4
