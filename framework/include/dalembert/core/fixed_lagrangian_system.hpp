#pragma once
// A LagrangianSystem written as a fixed-size model (issue 4). The plugin writes a plain struct —
// no virtual functions, Eigen arguments of any kind (`auto`) — and derives its system from
// FixedLagrangianSystem<Model>, which provides
//   * the virtual ConstrainedLagrangian interface, so every integrator plugin works on it as before;
//   * CompiledSchemes: the framework's explicit Runge–Kutta and nonholonomic Newmark templates
//     compiled here with the model inlined and fixed-size Eigen types, which the rk2/rk4 and
//     nonholonomic_newmark plugins use instead of their generic path (`compiled: false` turns it off).
//
// The model struct:
//   static constexpr int dof = n, constraints = r;
//   double potential(const auto& q) const;                        V(q)
//   void potential_gradient(const auto& q, auto&& g) const;       ∇V, n
//   void potential_hessian(const auto& q, auto&& H) const;        ∇²V, n×n
//   void constraint_matrix(const auto& q, auto&& A) const;        A(q), r×n
//   void constraint_gradient(const auto& q, int a, auto&& G) const;  ∂A_{ai}/∂q^j, n×n
// and optionally
//   void mass(auto&& M) const;                                    constant M (absent: M = I)
//   void curvature(const auto& q, const auto& v, auto&& c) const; (∂A/∂q)[v]v, r
//   void constraint_derivative(const auto& q, const auto& w, auto&& DA) const;  DA[w], r×n
//   void apply_constraint(const auto& q, const auto& x, auto&& y) const;         y = A(q)x, r
//   void add_constraint_force(const auto& q, const auto& lambda, auto&& f) const; f += A(q)ᵀλ, n
// (closed forms save the n×n constraint gradient and the structural zeros of A on the hot path;
// the last two only together, and only where A(q) is cheap to recompute per product).
#include <Eigen/Core>
#include <dalembert/core/compiled_schemes.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/fixed_nonholonomic_field.hpp>
#include <dalembert/core/model_access.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/math/newmark_step.hpp>
#include <memory>
#include <utility>

namespace dalembert {

/// Explicit Runge–Kutta on the continuous field of a fixed-size model.
template <class Model>
class CompiledRungeKutta final : public CompiledStepper {
 public:
  using VecN = typename FixedAccess<Model>::VecN;
  CompiledRungeKutta(const Model& model, const ButcherTableau& tableau) : rk_(tableau) { field_.bind(model); }
  // flatten: the whole step (stages, field, model) in one function, whatever GCC's size heuristics
  // say (124 → 80 ns per RK4 step on the chaotic particle); stepping s in place, 80 → 68.
  [[gnu::flatten]] void step(State& s, double h) override {
    // In place: the stages only read q and v, which change in the final combination, after every
    // evaluation that could throw StepFailure has succeeded — s is unchanged on failure.
    Eigen::Map<VecN> q(s.q.data()), v(s.v.data());
    rk_.step([this](double t, const VecN& x, const VecN& w, VecN& xd, VecN& wd) { field_.evaluate(t, x, w, xd, wd); },
             s.t, q, v, h);
    s.t += h;
  }

 private:
  FixedNonholonomicField<Model> field_;
  ExplicitRungeKuttaT<VecN> rk_;
};

/// Nonholonomic Newmark on a fixed-size model.
template <class Model>
class CompiledNewmark final : public CompiledStepper {
 public:
  CompiledNewmark(const Model& model, const NewmarkParameters& p, const NewtonOptions& newton) {
    step_.bind(model, p, newton);
  }
  [[gnu::flatten]] void step(State& s, double h) override { step_.step(s, h); }
  const std::vector<double>& quantities() const override { return step_.quantities(); }

 private:
  NewmarkStep<FixedAccess<Model>> step_;
};

template <class Model>
class FixedLagrangianSystem : public LagrangianSystem, public CompiledSchemes {
 public:
  using Access = FixedAccess<Model>;
  using VecN = typename Access::VecN;
  using MatN = typename Access::MatN;
  using MatRN = typename Access::MatRN;

  template <class... Args>
  explicit FixedLagrangianSystem(Args&&... args) : model_(std::forward<Args>(args)...) {}
  const Model& fixed_model() const { return model_; }

  // ----- ConstrainedLagrangian, forwarded to the model -----
  int dof() const final { return Model::dof; }
  int num_constraints() const final { return Model::constraints; }
  void mass(ConstVecRef q, MatRef M) const final {
    Access access;
    access.bind(model_);
    access.mass(q, M);
  }
  bool constant_mass() const final { return true; }
  double potential(ConstVecRef q) const final { return model_.potential(q); }
  void potential_gradient(ConstVecRef q, VecRef g) const final { model_.potential_gradient(q, g); }
  void potential_hessian(ConstVecRef q, MatRef H) const final { model_.potential_hessian(q, H); }
  void constraint_matrix(ConstVecRef q, MatRef A) const final { model_.constraint_matrix(q, A); }
  void constraint_gradient(ConstVecRef q, int a, MatRef G) const final { model_.constraint_gradient(q, a, G); }

  // ----- System, at fixed size (observers call these every step) -----
  double energy(const State& s) const override {  // ½vᵀMv + V(q)
    const VecN v = s.v;
    MatN M;
    mass(s.q, M);
    return 0.5 * v.dot(M * v) + model_.potential(s.q);
  }
  double constraint_residual(const State& s) const override {  // ‖A(q)v‖∞
    if constexpr (Model::constraints == 0) {
      return 0.0;
    } else {
      MatRN A;
      model_.constraint_matrix(s.q, A);
      return (A * VecN(s.v)).template lpNorm<Eigen::Infinity>();
    }
  }

  // ----- CompiledSchemes -----
  std::unique_ptr<CompiledStepper> runge_kutta(const ButcherTableau& tableau) const override {
    return std::make_unique<CompiledRungeKutta<Model>>(model_, tableau);
  }
  std::unique_ptr<CompiledStepper> newmark(const NewmarkParameters& p, const NewtonOptions& newton) const override {
    return std::make_unique<CompiledNewmark<Model>>(model_, p, newton);
  }

 private:
  Model model_;
};

}  // namespace dalembert
