#pragma once
// A LagrangianSystem written as a fixed-size model (issues 4 and 13). The plugin writes a plain
// struct — no virtual functions, Eigen arguments of any kind (`auto`) — and derives its system from
// FixedLagrangianSystem<Model>, which provides
//   * the virtual ConstrainedLagrangian interface, so every integrator plugin works on it as before;
//   * AutomaticDerivatives: every derivative by forward-mode AD from V, M and A, which the
//     derivative checker compares with the hand-written ones;
//   * CompiledSchemes: the framework's explicit Runge–Kutta and nonholonomic Newmark templates
//     compiled here with the model inlined and fixed-size Eigen types, which the rk2/rk4 and
//     nonholonomic_newmark plugins use instead of their generic path (`compiled: false` turns it off;
//     offered for fixed sizes and no external force; Newmark for a constant mass matrix only,
//     Runge–Kutta for M(q) too);
//   * Linearizable, when the model declares a family of steady motions (steady_family() and
//     steady_state(); schemes/fixed_linearizable.hpp): the exact linearisation of its reduced
//     dynamics, which the linear_stability study kind sweeps along the family.
//
// The model struct — L = ½vᵀM(q)v − V(q) and A(q), generic in the scalar (math/forward_derivatives.hpp
// says how: a `-> scalar_t<decltype(q)>` result, unqualified sin/cos after `using std::sin;`):
//   static constexpr int dof = n, constraints = r;  either may be Eigen::Dynamic (a size chosen by a
//   int n() const; int r() const;                   parameter): the model then says it at run time,
//                                                   AD runs on dynamic-size duals (which allocate),
//                                                   and the compiled schemes are not offered
//   auto potential(const auto& q) const -> scalar_t<decltype(q)>;  V(q)
//   void constraint_matrix(const auto& q, auto&& A) const;         A(q), r×n
// and optionally
//   void mass(auto&& M) const;                                     constant M (absent: M = I), or
//   void mass(const auto& q, auto&& M) const;                      M(q)
//   void external_force(double t, const auto& q, const auto& v, auto&& f) const;   F(t, q, v), n
//   static constexpr std::array<int, m> mass_coordinates{...};  the coordinates M(q) depends on
//                                                   (every derivative of M then takes m AD
//                                                   directions, not n; checked at construction)
//   static constexpr std::array<int, m> potential_coordinates{...};  the coordinates V(q) and g(q)
//                                                   depend on (the same for ∇V, ∂g/∂q, ∇²g w)
//   static constexpr int holonomic = k;                            k holonomic constraints g(q) = 0
//   void holonomic_constraint(const auto& q, auto&& g) const;      (issue 28; absent: k = 0), g(q), k
//   void affine_constraint(const auto& t, const auto& q, auto&& b) const;   moving constraints
//                                                   A(q)v + b(t, q) = 0 (issue 30; absent: b = 0), r;
//                                                   schemes/fixed_affine_constraint.hpp
//   auto time_potential(const auto& t, const auto& q) const -> scalar_t<decltype(q)>;
//                                                   a potential U(t, q) that changes in time, added
//                                                   to V(q) (issue 30; absent: U = 0); its force
//                                                   −∂U/∂q joins external_force(), its value the
//                                                   energy; schemes/fixed_time_potential.hpp
// With g, the system's constraint distribution is C = [A; ∂g/∂q] (num_constraints() = r + k, the
// rows of g last): ∂g/∂q, ∇²g and the contractions come from AD on g, so the continuous field,
// constraint_residual() and project() keep the velocity form of g, and project() puts q on g = 0.
// Every derivative is then derived by AD. A model may write any of them in closed form, which
// takes precedence (and is checked against AD by `dalembert check` and when a study binds it):
//   void potential_gradient(const auto& q, auto&& g) const;        ∇V, n
//   void potential_hessian(const auto& q, auto&& H) const;         ∇²V, n×n
//   void constraint_gradient(const auto& q, int a, auto&& G) const;  ∂A_{ai}/∂q^j, n×n
//   void curvature(const auto& q, const auto& v, auto&& c) const;  (∂A/∂q)[v]v, r
//   void constraint_derivative(const auto& q, const auto& w, auto&& DA) const;  DA[w], r×n
//   void coriolis(const auto& q, const auto& v, auto&& c) const;   Ṁv − ½∂_q(vᵀMv), n
// and, not derivatives but closed forms of products with A (only together, and only where A(q) is
// cheap to recompute per product — they skip its structural zeros):
//   void apply_constraint(const auto& q, const auto& x, auto&& y) const;         y = A(q)x, r
//   void add_constraint_force(const auto& q, const auto& lambda, auto&& f) const; f += A(q)ᵀλ, n
#include <Eigen/Core>
#include <dalembert/core/automatic_derivatives.hpp>
#include <dalembert/schemes/compiled_schemes.hpp>
#include <dalembert/schemes/fixed_affine_constraint.hpp>
#include <dalembert/schemes/fixed_linearizable.hpp>
#include <dalembert/schemes/fixed_time_potential.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/fixed_nonholonomic_field.hpp>
#include <dalembert/core/model_access.hpp>
#include <dalembert/core/model_rules.hpp>
#include <dalembert/math/central_difference.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/schemes/newmark_step.hpp>
#include <memory>
#include <string>
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
  void step(State& s, double h) override {
    // M(q): not flattened (the model's mass on duals, inlined into every stage, is more than GCC
    // can take: an internal compiler error on the Whipple bicycle, and no gain at that size).
    if constexpr (FixedAccess<Model>::configuration_mass)
      step_in_place(s, h);
    else
      flat_step(s, h);
  }

 private:
  [[gnu::flatten]] void flat_step(State& s, double h) { step_in_place(s, h); }
  void step_in_place(State& s, double h) {
    // In place: the stages only read q and v, which change in the final combination, after every
    // evaluation that could throw StepFailure has succeeded — s is unchanged on failure.
    Eigen::Map<VecN> q(s.q.data()), v(s.v.data());
    rk_.step([this](double t, const VecN& x, const VecN& w, VecN& xd, VecN& wd) { field_.evaluate(t, x, w, xd, wd); },
             s.t, q, v, h);
    s.t += h;
  }

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
class FixedLagrangianSystem : public LagrangianSystem,
                              public AutomaticDerivatives,
                              public CompiledSchemes,
                              public LinearizableBase<FixedLagrangianSystem<Model>, model_rules::checked_t<Model>>,
                              public AffineConstraintBase<FixedLagrangianSystem<Model>, model_rules::checked_t<Model>>,
                              public TimePotentialBase<FixedLagrangianSystem<Model>, model_rules::checked_t<Model>> {
  // The rules of core/model_rules.hpp: a model that breaks one gets its message, and a stand-in is
  // compiled in its place so that nothing else is reported.
  static_assert(model_rules::declares_sizes<Model>,
                "FixedLagrangianSystem<Model>: the model must declare `static constexpr int dof = n, constraints = r;` "
                "(Eigen::Dynamic for a size chosen at run time, said by `int n() const` / `int r() const`)");
  static_assert(model_rules::potential_rule<Model>,
                "FixedLagrangianSystem<Model>: the model's potential is not generic in the scalar (automatic "
                "differentiation calls it on dual numbers): declare it "
                "`auto potential(const auto& q) const -> scalar_t<decltype(q)>` (README: Adding a plugin)");
  static_assert(model_rules::constraint_matrix_rule<Model>,
                "FixedLagrangianSystem<Model>: the model's constraint_matrix is not generic in the scalar (automatic "
                "differentiation calls it on dual numbers): declare it "
                "`void constraint_matrix(const auto& q, auto&& A) const` (README: Adding a plugin)");
  static_assert(model_rules::holonomic_declared_rule<Model>,
                "FixedLagrangianSystem<Model>: a model with holonomic_constraint must declare how many constraints it "
                "writes, a compile-time number: `static constexpr int holonomic = k;` (README: Adding a plugin)");
  static_assert(model_rules::holonomic_rule<Model>,
                "FixedLagrangianSystem<Model>: the model's holonomic_constraint is not generic in the scalar (automatic "
                "differentiation calls it on dual numbers): declare it "
                "`void holonomic_constraint(const auto& q, auto&& g) const` (README: Adding a plugin)");
  static_assert(model_rules::mass_rule<Model>,
                "FixedLagrangianSystem<Model>: the model's mass is not generic in the scalar (automatic "
                "differentiation calls M(q) on dual numbers): declare it `void mass(const auto& q, auto&& M) const`, "
                "or `void mass(auto&& M) const` for a constant M (README: Adding a plugin)");

 public:
  using CheckedModel = model_rules::checked_t<Model>;  ///< Model, once it follows the rules
  using Access = FixedAccess<CheckedModel>;
  using VecN = typename Access::VecN;
  using VecR = typename Access::VecR;
  using MatN = typename Access::MatN;
  using MatRN = typename Access::MatRN;
  /// R: the rows of the distribution C = [A; ∂g/∂q]; RA those of A, K those of g.
  static constexpr int N = CheckedModel::dof, R = Access::R, RA = Access::RA, K = Access::K;
  static constexpr bool external_force_model = requires(const CheckedModel& m, const VecN& q, VecN& f) {
    m.external_force(0.0, q, q, f);
  };
  /// Moving constraints A(q)v + b(t, q) = 0 (issue 30): the system is then an AffineConstraint.
  static constexpr bool affine_model = model_rules::declares_affine_constraint<CheckedModel>;
  /// A potential U(t, q) that changes in time (issue 30): the system is then a TimeDependentPotential,
  /// and −∂U/∂q is part of its external force.
  static constexpr bool time_potential_model = model_rules::declares_time_potential<CheckedModel>;
  /// Forced: a model's F(t, q, v), or U's force.
  static constexpr bool forced_model = external_force_model || time_potential_model;

  template <class... Args>
  explicit FixedLagrangianSystem(Args&&... args) : model_(std::forward<Args>(args)...) {
    access_.bind(model_);
    if constexpr (Access::listed_mass_coordinates) check_mass_coordinates();
    if constexpr (Access::listed_potential_coordinates) check_potential_coordinates();
  }
  FixedLagrangianSystem(const FixedLagrangianSystem&) = delete;  // access_ points into this object
  FixedLagrangianSystem& operator=(const FixedLagrangianSystem&) = delete;
  const CheckedModel& fixed_model() const { return model_; }

  // ----- ConstrainedLagrangian, through the model (derivatives it does not write: AD) -----
  int dof() const final { return access_.n(); }
  int num_constraints() const final { return access_.r(); }
  void mass(ConstVecRef q, MatRef M) const final { access_.mass(q, M); }
  bool constant_mass() const final { return Access::constant_mass(); }
  void coriolis(ConstVecRef q, ConstVecRef v, VecRef c) const final { access_.coriolis(q, v, c); }
  void kinetic_gradient(ConstVecRef q, ConstVecRef v, VecRef k) const final { access_.kinetic_gradient(q, v, k); }
  void mass_derivative(ConstVecRef q, ConstVecRef v, MatRef D) const final { access_.mass_derivative(q, v, D); }
  /// H = ½∂²_q(vᵀM(q)v): differences of AD's kinetic gradient (ConstrainedLagrangian's default);
  /// with mass_coordinates listed, along those columns only — H vanishes outside their rows and
  /// columns (the discrete Lagrangians' Newton Jacobians of DLA and MLA take m, not n, columns).
  void kinetic_hessian(ConstVecRef q, ConstVecRef v, MatRef H) const override {
    if constexpr (Access::listed_mass_coordinates) {
      const VecN q0 = q, v0 = v;
      VecN qs, k, column;
      H.setZero();
      for (const int j : CheckedModel::mass_coordinates) {
        central_difference([&](const VecN& x, VecN& out) { access_.kinetic_gradient(x, v0, out); }, q0, j, qs, k,
                           column);
        H.col(j) = column;
      }
    } else {
      ConstrainedLagrangian::kinetic_hessian(q, v, H);
    }
  }
  double potential(ConstVecRef q) const final { return model_.potential(q); }
  void potential_gradient(ConstVecRef q, VecRef g) const final { access_.potential_gradient(q, g); }
  void potential_hessian(ConstVecRef q, MatRef H) const final { access_.potential_hessian(q, H); }
  void constraint_matrix(ConstVecRef q, MatRef A) const final { access_.constraint_matrix(q, A); }
  void constraint_gradient(ConstVecRef q, int a, MatRef G) const final { access_.constraint_gradient(q, a, G); }
  int holonomic_count() const final { return K; }
  void holonomic(ConstVecRef q, VecRef g) const final { access_.holonomic(q, g); }
  void holonomic_jacobian(ConstVecRef q, MatRef J) const final { access_.holonomic_jacobian(q, J); }
  bool has_external_force() const final { return forced_model; }
  /// F(t, q, v) of the model, minus ∂U/∂q(t, q) of a time-dependent potential.
  void external_force(double t, ConstVecRef q, ConstVecRef v, VecRef f) const final {
    if constexpr (external_force_model)
      model_.external_force(t, q, v, f);
    else
      f.setZero();
    if constexpr (time_potential_model) this->subtract_time_potential_force(t, q, f);
  }

  // ----- System, at fixed size (observers call these every step) -----
  double energy(const State& s) const override {  // ½vᵀM(q)v + V(q) (+ U(t, q))
    const VecN q = s.q, v = s.v;
    MatN M = ad::sized<MatN>(access_.n(), access_.n());
    access_.mass(q, M);
    const double E = 0.5 * v.dot(M * v) + model_.potential(q);
    if constexpr (time_potential_model)
      return E + model_.time_potential(s.t, q);
    else
      return E;
  }
  double constraint_residual(const State& s) const override {  // ‖A(q)v‖∞
    if constexpr (R == 0) {
      return 0.0;
    } else {
      if (access_.r() == 0) return 0.0;
      MatRN A = ad::sized<MatRN>(access_.r(), access_.n());
      access_.constraint_matrix(s.q, A);
      if constexpr (affine_model) {  // ‖A v + b(t, q)‖∞
        VecR b = ad::sized<VecR>(access_.r(), 1);
        this->affine_term(s.t, s.q, b);
        return (A * VecN(s.v) + b).template lpNorm<Eigen::Infinity>();
      }
      return (A * VecN(s.v)).template lpNorm<Eigen::Infinity>();
    }
  }

  // ----- AutomaticDerivatives -----
  std::vector<std::string> hand_written() const override {
    std::vector<std::string> names;
    if (Access::hand_potential_gradient) names.emplace_back("potential_gradient");
    if (Access::hand_potential_hessian) names.emplace_back("potential_hessian");
    if (Access::hand_constraint_gradient) names.emplace_back("constraint_gradient");
    if (Access::hand_curvature) names.emplace_back("curvature");
    if (Access::hand_constraint_derivative) names.emplace_back("constraint_derivative");
    if (Access::hand_coriolis) names.emplace_back("coriolis");
    return names;
  }
  void automatic_potential_gradient(ConstVecRef q, VecRef g) const override { ad::potential_gradient<N>(model_, q, g); }
  void automatic_potential_hessian(ConstVecRef q, MatRef H) const override { ad::potential_hessian<N>(model_, q, H); }
  // (The rows of g are AD's in the model's functions as well: a model writes no derivative of g.)
  void automatic_constraint_gradient(ConstVecRef q, int a, MatRef G) const override {
    if constexpr (K > 0)
      if (a >= access_.ra()) return access_.constraint_gradient(q, a, G);
    ad::constraint_gradient<N, RA>(model_, access_.ra(), q, a, G);
  }
  void automatic_curvature(ConstVecRef q, ConstVecRef v, VecRef c) const override {
    ad::curvature<N, RA>(model_, access_.ra(), q, v, c.head(access_.ra()));
    if constexpr (K > 0) ad::holonomic_curvature<N, K>(model_, K, q, v, c.tail(K));
  }
  void automatic_constraint_derivative(ConstVecRef q, ConstVecRef w, MatRef DA) const override {
    ad::constraint_derivative<N, RA>(model_, access_.ra(), q, w, DA.topRows(access_.ra()));
    if constexpr (K > 0) ad::holonomic_hessian_times<N, K>(model_, K, q, w, DA.bottomRows(K));
  }
  void automatic_coriolis(ConstVecRef q, ConstVecRef v, VecRef c) const override {
    if constexpr (Access::configuration_mass)
      ad::coriolis<N>(model_, q, v, c);
    else
      c.setZero();
  }
  void model_curvature(ConstVecRef q, ConstVecRef v, VecRef c) const override { access_.curvature(q, v, c); }
  void model_constraint_derivative(ConstVecRef q, ConstVecRef w, MatRef DA) const override {
    access_.constraint_derivative(q, w, DA);
  }

  // ----- CompiledSchemes: for fixed sizes, a constant M and no external force (what their templates
  // assume) -----
  static constexpr bool compiles_schemes =
      N != Eigen::Dynamic && R != Eigen::Dynamic && Access::constant_mass() && !forced_model && !affine_model;
  /// Runge–Kutta also for a configuration-dependent M(q) (issue 28 item 6): the field factorises
  /// M(q) at each evaluation and adds the Coriolis terms (core/fixed_nonholonomic_field.hpp).
  /// (Not for moving constraints: the compiled field knows no b; the generic field does.)
  static constexpr bool compiles_runge_kutta =
      N != Eigen::Dynamic && R != Eigen::Dynamic && !forced_model && !affine_model;
  std::unique_ptr<CompiledStepper> runge_kutta(const ButcherTableau& tableau) const override {
    if constexpr (compiles_runge_kutta)
      return std::make_unique<CompiledRungeKutta<CheckedModel>>(model_, tableau);
    else
      return nullptr;
  }
  std::unique_ptr<CompiledStepper> newmark(const NewmarkParameters& p, const NewtonOptions& newton) const override {
    if constexpr (compiles_schemes && K == 0)  // the Newmark schemes of seed 000 do not treat g
      return std::make_unique<CompiledNewmark<CheckedModel>>(model_, p, newton);
    else
      return nullptr;
  }

 private:
  /// A model's mass_coordinates must list every coordinate M(q) depends on: checked on the full
  /// n-direction AD pass at two generic configurations (a derivative along an unlisted coordinate
  /// would be dropped from the Coriolis terms and the discrete Lagrangians).
  void check_mass_coordinates() const {
    for (const double base : {0.3, -0.7}) {
      VecN q = ad::sized<VecN>(access_.n(), 1);
      for (int i = 0; i < access_.n(); ++i) q[i] = base + 0.137 * i;
      const int k = ad::unlisted_mass_dependence<N>(model_, q, CheckedModel::mass_coordinates);
      if (k >= 0)
        throw Error("FixedLagrangianSystem: the model's M(q) depends on coordinate " + std::to_string(k) +
                    ", which its mass_coordinates does not list");
    }
  }

  /// The same for potential_coordinates: V(q) and g(q) along every unlisted coordinate.
  void check_potential_coordinates() const {
    for (const double base : {0.3, -0.7}) {
      VecN q = ad::sized<VecN>(access_.n(), 1);
      for (int i = 0; i < access_.n(); ++i) q[i] = base + 0.137 * i;
      const int k = ad::unlisted_potential_dependence<N, K>(model_, K, q, CheckedModel::potential_coordinates);
      if (k >= 0)
        throw Error("FixedLagrangianSystem: the model's V(q) or g(q) depends on coordinate " + std::to_string(k) +
                    ", which its potential_coordinates does not list");
    }
  }

  CheckedModel model_;
  Access access_;
};

}  // namespace dalembert
