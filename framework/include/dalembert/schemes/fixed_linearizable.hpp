#pragma once
// The Linearizable model (core/linearizable.hpp) of a FixedLagrangianSystem whose model declares
// its family of steady motions:
//   SteadyMotionFamily steady_family() const;                    // names and reduced variables
//   void steady_state(double value, auto&& q, auto&& qd) const;   // the steady motion at `value`
// detected by a requires-expression. FixedLagrangianSystem derives from LinearizableBase<...>: this
// class for such a model, an empty one otherwise — so only a model that declares a family compiles
// the nested AD of the linearisation (core/model_linearisation.hpp), whose M, A (and g) must run on
// duals over duals.
#include <dalembert/core/errors.hpp>
#include <dalembert/core/linearizable.hpp>
#include <dalembert/core/model_linearisation.hpp>
#include <type_traits>

namespace dalembert {

namespace model_rules {

/// The model declares a family of steady motions (and so is linearised by the framework).
template <class M>
constexpr bool declares_steady_motions = requires(const M& m, ad::Matrix<double, M::dof>& q) {
  { m.steady_family() } -> std::convertible_to<SteadyMotionFamily>;
  m.steady_state(0.0, q, q);
};

}  // namespace model_rules

/// Linearizable for FixedLagrangianSystem<Model> (`System`, which gives fixed_model() and layout()).
template <class System, class Model>
class FixedLinearizable : public Linearizable {
  static_assert(Model::dof != Eigen::Dynamic && Model::constraints != Eigen::Dynamic,
                "a model of run-time size cannot declare steady motions: the linearisation is written for fixed sizes");
  static_assert(!requires(const Model& m, const ad::Matrix<double, Model::dof>& q, ad::Matrix<double, Model::dof>& f) {
    m.external_force(0.0, q, q, f);
  }, "a model with an external force cannot declare steady motions: the linearisation does not include external forces");

 public:
  using VecN = Eigen::Matrix<double, Model::dof, 1>;
  SteadyMotionFamily steady_family() const override { return model().steady_family(); }
  void steady_state(double value, State& s) const override {
    VecN q = VecN::Zero(), qd = VecN::Zero();
    model().steady_state(value, q, qd);
    s.t = 0.0;
    s.q = q;
    s.v = qd;
  }
  void linearise(const State& s, const ReducedVariables& variables, Linearisation& out) const override {
    check_size(s);
    try {
      out = linearisation::linearise(model(), VecN(s.q), VecN(s.v), variables, self().layout());
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const Error*>(&e)) throw;
      throw Error("system '" + self().name() + "': " + e.what());
    }
  }
  void perturbed_state(const State& s, const ReducedVariables& variables, const Vec& dy, State& out) const override {
    check_size(s);
    linearisation::TangentMaps tm;
    try {
      tm = linearisation::tangent_maps(model(), VecN(s.q), VecN(s.v), variables);
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const Error*>(&e)) throw;
      throw Error("system '" + self().name() + "': " + e.what());
    }
    // y = (δq_m, δq̇_m, δq̇_s): m + (nu − held) entries, u = (q̇_m, q̇_s, q̇_held) having nu.
    const Eigen::Index m = tm.T.cols(), nu = tm.Wu.cols();
    const Eigen::Index ny = m + nu - static_cast<Eigen::Index>(variables.held.size());
    if (dy.size() != ny)
      throw Error("perturbed_state: dy has " + std::to_string(dy.size()) + " entries; the reduced state has " +
                  std::to_string(ny));
    Vec du = Vec::Zero(nu);  // (δq̇_m, δq̇_s, δq̇_held = 0)
    du.head(dy.size() - m) = dy.tail(dy.size() - m);
    out.t = s.t;
    out.q = s.q + tm.T * dy.head(m);
    out.v = s.v + tm.Wq * dy.head(m) + tm.Wu * du;
  }

 private:
  void check_size(const State& s) const {
    if (s.q.size() != Model::dof || s.v.size() != Model::dof)
      throw Error("linearise: the state has " + std::to_string(s.q.size()) + " coordinates and " +
                  std::to_string(s.v.size()) + " speeds; the system has " + std::to_string(Model::dof));
  }
  const System& self() const { return static_cast<const System&>(*this); }
  const Model& model() const { return self().fixed_model(); }
};

/// The base a FixedLagrangianSystem takes for the Linearizable model: none without a steady family.
struct NotLinearizable {};
template <class System, class Model>
using LinearizableBase = std::conditional_t<model_rules::declares_steady_motions<Model>, FixedLinearizable<System, Model>,
                                            NotLinearizable>;

}  // namespace dalembert
