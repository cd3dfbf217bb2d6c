#pragma once
// The AffineConstraint model (core/affine_constraint.hpp, issue 30) of a FixedLagrangianSystem whose
// model declares moving constraints A(q)v + b(t, q) = 0:
//   void affine_constraint(const auto& t, const auto& q, auto&& b) const;   // b(t, q), `constraints` rows
// generic in the scalar — t is of q's scalar type, so AD differentiates b in t as well as in q:
//   ∂b/∂q  one pass of n directions (q seeded, t constant),
//   ∂b/∂t  one pass of one direction (t seeded, q constant),
//   ḃ = ∂b/∂t + (∂b/∂q)v  one pass of one direction along (1, v): what the field's multiplier needs.
// FixedLagrangianSystem derives from AffineConstraintBase<...>: this class for such a model, an empty
// one otherwise, so a model without b is compiled exactly as before. The rows of g (holonomic
// constraints) get b = 0.
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/math/forward_derivatives.hpp>
#include <type_traits>

namespace dalembert {

namespace model_rules {

/// The model declares b(t, q) (called here on doubles; generic_affine_rule asks for duals).
template <class M>
constexpr bool declares_affine_constraint =
    requires(const M& m, const ad::Matrix<double, M::dof>& q, ad::Matrix<double, M::constraints>& b) {
      m.affine_constraint(0.0, q, b);
    };
/// ... and generic in the scalar (t and q duals).
template <class M>
constexpr bool generic_affine_rule = !declares_affine_constraint<M> ||
    requires(const M& m, const ad::Matrix<ad::Dual<1>, M::dof>& q, ad::Matrix<ad::Dual<1>, M::constraints>& b) {
      m.affine_constraint(ad::Dual<1>(0.0), q, b);
    };

}  // namespace model_rules

/// AffineConstraint for FixedLagrangianSystem<Model> (`System` gives fixed_model(), RA and K).
template <class System, class Model>
class FixedAffineConstraint : public AffineConstraint {
  static_assert(model_rules::generic_affine_rule<Model>,
                "FixedLagrangianSystem<Model>: the model's affine_constraint is not generic in the scalar (automatic "
                "differentiation calls it on dual numbers in t and q): declare it "
                "`void affine_constraint(const auto& t, const auto& q, auto&& b) const` (README: Moving constraints)");
  static_assert(Model::dof != Eigen::Dynamic && Model::constraints != Eigen::Dynamic,
                "a model of run-time size cannot declare affine_constraint yet: it is written for fixed sizes");
  static constexpr int N = Model::dof, RA = Model::constraints;
  using VecN = Eigen::Matrix<double, N, 1>;

 public:
  void affine_term(double t, ConstVecRef q, VecRef b) const override {
    ad::Matrix<double, RA> out;
    model().affine_constraint(t, VecN(q), out);
    b.setZero();
    b.head(RA) = out;
  }
  void affine_rate(double t, ConstVecRef q, ConstVecRef v, VecRef bdot) const override {
    const auto x = ad::seed_direction<N>(q, v);  // q + εv, t + ε
    ad::Matrix<ad::Dual<1>, RA> out;
    model().affine_constraint(ad::Dual<1>(t, Eigen::Matrix<double, 1, 1>(1.0)), x, out);
    bdot.setZero();
    for (int a = 0; a < RA; ++a) bdot[a] = ad::derivatives_of(out[a], 1)[0];
  }
  void affine_jacobian(double t, ConstVecRef q, MatRef B) const override {
    const auto x = ad::seed_all<N>(q);
    ad::Matrix<ad::Dual<N>, RA> out;
    model().affine_constraint(ad::Dual<N>(t, VecN::Zero()), x, out);
    B.setZero();
    for (int a = 0; a < RA; ++a) B.row(a) = ad::derivatives_of(out[a], N).transpose();
  }
  void affine_time_derivative(double t, ConstVecRef q, VecRef bt) const override {
    const auto x = ad::seed_direction<N>(q, VecN::Zero());  // q constant, t + ε
    ad::Matrix<ad::Dual<1>, RA> out;
    model().affine_constraint(ad::Dual<1>(t, Eigen::Matrix<double, 1, 1>(1.0)), x, out);
    bt.setZero();
    for (int a = 0; a < RA; ++a) bt[a] = ad::derivatives_of(out[a], 1)[0];
  }

 private:
  const Model& model() const { return static_cast<const System&>(*this).fixed_model(); }
};

/// The base a FixedLagrangianSystem takes for the AffineConstraint model: none without b.
struct NoAffineConstraint {};
template <class System, class Model>
using AffineConstraintBase = std::conditional_t<model_rules::declares_affine_constraint<Model>,
                                                FixedAffineConstraint<System, Model>, NoAffineConstraint>;

}  // namespace dalembert
