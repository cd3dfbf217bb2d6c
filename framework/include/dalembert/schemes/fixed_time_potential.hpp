#pragma once
// The TimeDependentPotential model (core/time_dependent_potential.hpp, issue 30) of a
// FixedLagrangianSystem whose model declares a potential that changes in time:
//   auto time_potential(const auto& t, const auto& q) const -> scalar_t<decltype(q)>;   U(t, q)
// generic in the scalar — t is of q's scalar type, so AD differentiates U in t as well as in q:
//   ∂U/∂q  one pass of n directions (q seeded, t constant),
//   ∂U/∂t  one pass of one direction (t seeded, q constant).
// FixedLagrangianSystem derives from TimePotentialBase<...>: this class for such a model, an empty
// one otherwise, so a model without U is compiled exactly as before.
#include <dalembert/core/time_dependent_potential.hpp>
#include <dalembert/math/forward_derivatives.hpp>
#include <concepts>
#include <type_traits>

namespace dalembert {

namespace model_rules {

/// The model declares U(t, q) (called here on doubles; generic_time_potential_rule asks for duals).
template <class M>
constexpr bool declares_time_potential = requires(const M& m, const ad::Matrix<double, M::dof>& q) {
  { m.time_potential(0.0, q) } -> std::convertible_to<double>;
};
/// ... and generic in the scalar (t and q duals).
template <class M>
constexpr bool generic_time_potential_rule =
    !declares_time_potential<M> || requires(const M& m, const ad::Matrix<ad::Dual<1>, M::dof>& q) {
      { m.time_potential(ad::Dual<1>(0.0), q) } -> std::convertible_to<ad::Dual<1>>;
    };

}  // namespace model_rules

/// TimeDependentPotential for FixedLagrangianSystem<Model> (`System` gives fixed_model()).
template <class System, class Model>
class FixedTimePotential : public TimeDependentPotential {
  static_assert(model_rules::generic_time_potential_rule<Model>,
                "FixedLagrangianSystem<Model>: the model's time_potential is not generic in the scalar (automatic "
                "differentiation calls it on dual numbers in t and q): declare it "
                "`auto time_potential(const auto& t, const auto& q) const -> scalar_t<decltype(q)>` "
                "(README: Moving constraints and time-dependent potentials)");
  static_assert(Model::dof != Eigen::Dynamic,
                "a model of run-time size cannot declare time_potential yet: it is written for fixed sizes");
  static constexpr int N = Model::dof;
  using VecN = Eigen::Matrix<double, N, 1>;

 public:
  double time_potential(double t, ConstVecRef q) const override { return model().time_potential(t, VecN(q)); }
  void time_potential_gradient(double t, ConstVecRef q, VecRef g) const override {
    if constexpr (kGeneric) g = gradient(t, q);
  }
  double time_potential_rate(double t, ConstVecRef q) const override {
    if constexpr (kGeneric) {
      const auto x = ad::seed_direction<N>(q, VecN::Zero());  // q constant, t + ε
      const ad::Dual<1> U = model().time_potential(ad::Dual<1>(t, Eigen::Matrix<double, 1, 1>(1.0)), x);
      return ad::derivatives_of(U, 1)[0];
    } else {
      return 0.0;
    }
  }
  /// f −= ∂U/∂q (t, q): U's part of the external force, without allocating.
  void subtract_time_potential_force(double t, ConstVecRef q, VecRef f) const {
    if constexpr (kGeneric) f -= gradient(t, q);
  }

 private:
  // (A model that breaks the rule gets the static_assert's message alone: no body calls it on duals.)
  static constexpr bool kGeneric = model_rules::generic_time_potential_rule<Model>;
  const Model& model() const { return static_cast<const System&>(*this).fixed_model(); }
  // ∂U/∂q by one pass of n directions (q seeded, t constant).
  VecN gradient(double t, ConstVecRef q) const {
    const ad::Dual<N> U = model().time_potential(ad::Dual<N>(t, VecN::Zero()), ad::seed_all<N>(q));
    return ad::derivatives_of(U, N);
  }
};

/// The base a FixedLagrangianSystem takes for the TimeDependentPotential model: none without U.
struct NoTimePotential {};
template <class System, class Model>
using TimePotentialBase = std::conditional_t<model_rules::declares_time_potential<Model>,
                                             FixedTimePotential<System, Model>, NoTimePotential>;

}  // namespace dalembert
