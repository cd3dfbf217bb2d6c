#pragma once
// The rules a FixedLagrangianSystem model follows (issue 26 item 7), checked when the system is
// compiled so that a model written in `double` gets one message naming the function and the rule
// instead of a page of template errors from deep inside automatic differentiation.
//
// Each rule is a set of calls the framework makes on every model (the virtual functions of
// FixedLagrangianSystem instantiate them all), with the argument types it passes: a model that
// breaks one never compiled, so checking the rules breaks no plugin source. Where a rule fails,
// FixedLagrangianSystem compiles a stand-in model in its place (RefusedModel), so that the rule's
// message is the only error it reports.
#include <Eigen/Core>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/math/forward_derivatives.hpp>
#include <type_traits>
#include <utility>

namespace dalembert::model_rules {

/// `static constexpr int dof, constraints` (Eigen::Dynamic: the model says it in n() / r()).
template <class M>
constexpr bool declares_sizes = requires {
  requires std::is_convertible_v<decltype(M::dof), int> && std::is_convertible_v<decltype(M::constraints), int>;
  requires(M::dof >= 0 || M::dof == Eigen::Dynamic) && (M::constraints >= 0 || M::constraints == Eigen::Dynamic);
  requires M::dof != Eigen::Dynamic || requires(const M& m) { { m.n() } -> std::convertible_to<int>; };
  requires M::constraints != Eigen::Dynamic || requires(const M& m) { { m.r() } -> std::convertible_to<int>; };
};

template <class M, int N = M::dof>
using DualVec = ad::Matrix<ad::Dual<N>, N>;
template <class M, int N = M::dof>
using DualVec1 = ad::Matrix<ad::Dual<1>, N>;
template <class M, int N = M::dof>
using HessianVec = ad::Matrix<ad::DualOverDirection<N>, N>;

/// V(q) on doubles, on the duals of ∇V (n directions) and on the nested duals of ∇²V,
/// each returning its own scalar: `auto potential(const auto& q) const -> scalar_t<decltype(q)>`.
template <class M, int N = M::dof>
constexpr bool potential_generic = requires(const M& m, const ConstVecRef& q) {
  { m.potential(q) } -> std::convertible_to<double>;
  { m.potential(std::declval<DualVec<M>>()) } -> std::convertible_to<ad::Dual<N>>;
  { m.potential(std::declval<HessianVec<M>>()) } -> std::convertible_to<ad::DualOverDirection<N>>;
};

/// A(q) into an output of any matrix type, on doubles and on duals:
/// `void constraint_matrix(const auto& q, auto&& A) const`.
template <class M, int N = M::dof, int R = M::constraints>
constexpr bool constraint_matrix_generic =
    requires(const M& m, const ConstVecRef& q, MatRef& A, const DualVec<M>& x, ad::Matrix<ad::Dual<N>, R, N>& Ax,
             const DualVec1<M>& y, ad::Matrix<ad::Dual<1>, R, N>& Ay) {
      m.constraint_matrix(q, A);
      m.constraint_matrix(x, Ax);
      m.constraint_matrix(y, Ay);
    };

/// M(q) like A(q): `void mass(const auto& q, auto&& M) const`; a constant M: `void mass(auto&& M) const`.
template <class M, int N = M::dof>
constexpr bool configuration_mass = requires(const M& m, const ad::Matrix<double, N>& q, ad::Matrix<double, N, N>& mass) {
  m.mass(q, mass);
};
template <class M, int N = M::dof>
constexpr bool mass_generic = [] {
  if constexpr (configuration_mass<M>)
    return requires(const M& m, const ConstVecRef& q, MatRef& mass, const DualVec<M>& x, ad::Matrix<ad::Dual<N>, N, N>& Mx,
                    const DualVec1<M>& y, ad::Matrix<ad::Dual<1>, N, N>& My) {
      m.mass(q, mass);
      m.mass(x, Mx);
      m.mass(y, My);
    };
  else if constexpr (requires(const M& m, ad::Matrix<double, N, N>& mass) { m.mass(mass); })
    return requires(const M& m, MatRef& mass) { m.mass(mass); };
  else
    return true;  // no mass function: M = I
}();

/// Holonomic constraints g(q) = 0 (issue 28), optional: `static constexpr int holonomic = k;` (k ≥ 0,
/// a compile-time number) and g into an output of any vector type, on doubles, on the duals of ∂g/∂q
/// and on the nested duals of ∇²g: `void holonomic_constraint(const auto& q, auto&& g) const`.
template <class M>
constexpr bool declares_holonomic = requires {
  requires std::is_convertible_v<decltype(M::holonomic), int>;
};
/// k: the model's number of holonomic constraints (0 when it declares none).
template <class M>
constexpr int holonomic_count = [] {
  if constexpr (declares_holonomic<M>)
    return int(M::holonomic);
  else
    return 0;
}();
/// Whether the model writes a g(q) on doubles (declared or not).
template <class M>
constexpr bool writes_holonomic = requires(const M& m, const ConstVecRef& q, VecRef& g) { m.holonomic_constraint(q, g); };
template <class M, int N = M::dof, int K = holonomic_count<M>>
constexpr bool holonomic_generic =
    requires(const M& m, const ConstVecRef& q, VecRef& g, const DualVec<M>& x, ad::Matrix<ad::Dual<N>, K, 1>& gx,
             const HessianVec<M>& y, ad::Matrix<ad::DualOverDirection<N>, K, 1>& gy) {
      m.holonomic_constraint(q, g);
      m.holonomic_constraint(x, gx);
      m.holonomic_constraint(y, gy);
    };

// Each rule as FixedLagrangianSystem checks it: the others hold vacuously for a model without sizes,
// so that it gets the one message that matters.
template <class M>
constexpr bool potential_rule = [] {
  if constexpr (declares_sizes<M>) return potential_generic<M>;
  else return true;
}();
/// A model without nonholonomic constraints (constraints = 0, e.g. one with holonomic ones only) need
/// not write constraint_matrix.
template <class M>
constexpr bool writes_constraint_matrix = requires(const M& m, const ConstVecRef& q, MatRef& A) { m.constraint_matrix(q, A); };
template <class M>
constexpr bool constraint_matrix_rule = [] {
  if constexpr (declares_sizes<M>) {
    if constexpr (M::constraints == 0 && !writes_constraint_matrix<M>) return true;
    else return constraint_matrix_generic<M>;
  } else {
    return true;
  }
}();
template <class M>
constexpr bool mass_rule = [] {
  if constexpr (declares_sizes<M>) return mass_generic<M>;
  else return true;
}();
/// A model that writes g declares how many (a compile-time k ≥ 0), and g is generic in the scalar.
template <class M>
constexpr bool holonomic_declared_rule = [] {
  if constexpr (declares_sizes<M> && writes_holonomic<M>) return declares_holonomic<M> && holonomic_count<M> >= 0;
  else if constexpr (declares_sizes<M> && declares_holonomic<M>) return holonomic_count<M> >= 0;
  else return true;
}();
template <class M>
constexpr bool holonomic_rule = [] {
  if constexpr (declares_sizes<M> && holonomic_declared_rule<M> && declares_holonomic<M>) {
    if constexpr (holonomic_count<M> > 0) return holonomic_generic<M>;
    else return true;
  } else {
    return true;
  }
}();
template <class M>
constexpr bool generic = declares_sizes<M> && potential_rule<M> && constraint_matrix_rule<M> && mass_rule<M> &&
                         holonomic_declared_rule<M> && holonomic_rule<M>;

/// What FixedLagrangianSystem compiles in place of a model that breaks a rule: a valid model
/// (V = 0, A = 0, M = I, one coordinate and one constraint), constructible from anything.
struct RefusedModel {
  static constexpr int dof = 1, constraints = 1;
  template <class... Args>
  explicit RefusedModel(Args&&...) {}
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }
  void constraint_matrix(const auto&, auto&& A) const { A.setZero(); }
};

/// The model itself when it follows the rules, else the stand-in.
template <class M>
using checked_t = std::conditional_t<generic<M>, M, RefusedModel>;

}  // namespace dalembert::model_rules
