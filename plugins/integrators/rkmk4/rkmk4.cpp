// RKMK4: the classical fourth-order Runge–Kutta tableau lifted to a Lie group by Munthe-Kaas'
// method (H. Munthe-Kaas, "High order Runge–Kutta methods on manifolds", Appl. Numer. Math. 29
// (1999) 115–127, Algorithm 1; Iserles et al., Acta Numerica 9 (2000) §5.2), the non-structure-
// preserving baseline of issue 29. For a LieGroupModel without shape (lie_body_dynamics.hpp):
//     ġ = g ξ,   ξ̇ = 𝕄⁻¹P*(ad*_ξ𝕄ξ + f)                                          (A)
// with g(t_n + τ) = g_n exp(u(τ)), u̇ = dexp⁻¹_{−u}(ξ) (the left-trivialised velocity ξ = g⁻¹ġ =
// dexp_{−u}(u̇), since Ad_{exp(−u)} dexp_u = dexp_{−u}); stages i = 1..4, c = (0, ½, ½, 1):
//     u_i = h Σ_j a_ij K_j,   ξ_i = ξ_n + h Σ_j a_ij L_j,   g_i = g_n exp(u_i),
//     K_i = dexp⁻¹_{−u_i}(ξ_i),   L_i = ξ̇(t_n + c_i h, g_i, ξ_i)
//     g_{n+1} = g_n exp(h Σ b_i K_i),   ξ_{n+1} = ξ_n + h Σ b_i L_i,   b = (1, 2, 2, 1)/6.
// Order 4 (Munthe-Kaas 1999, Thm. 1: any order-p RK tableau with dexp⁻¹ exact or truncated at ad^{p−2});
// ξ stays in D = span E to round-off (A maps into it); g on the group to round-off (math/so3_group.hpp).
#include <cmath>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/math/se2.hpp>
#include <dalembert/math/so3_group.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/plugin/needs.hpp>
#include <dalembert/schemes/lie_body_dynamics.hpp>
#include <dalembert/schemes/open_integrator.hpp>
#include <dalembert/core/unit_quaternions.hpp>
#include "rkmk4_quaternions.hpp"
#include <limits>
#include <memory>
#include <string>

namespace {

using namespace dalembert;

template <class G>
class RKMK4On final : public OpenIntegrator {
 public:
  void bind(const System& s) override {
    model_ = &require<LieGroupModel>(s, name());
    body_.bind(*model_, name());
    nq_ = model_->coordinate_dim();
    for (Vec* v : {&qs_, &qnew_}) v->resize(nq_);
    for (Vec* v : {&vs_, &vnew_}) v->resize(G::dim);
  }
  void start(const State& s) override { model_->check_state(s); }

  void step(State& s, double h) override {
    constexpr int d = G::coordinates;
    const Algebra xi0 = G::body_velocity_at(s.q.template head<d>(), s.v.template head<G::dim>());
    static constexpr double a[4] = {0.0, 0.5, 0.5, 1.0}, b[4] = {1.0 / 6, 2.0 / 6, 2.0 / 6, 1.0 / 6};
    Algebra K[4], L[4], u_sum = Algebra::Zero(), xi_sum = Algebra::Zero();
    for (int i = 0; i < 4; ++i) {
      const Algebra u = i == 0 ? Algebra::Zero() : Algebra(a[i] * h * K[i - 1]);
      const Algebra xi = i == 0 ? xi0 : Algebra(xi0 + a[i] * h * L[i - 1]);
      K[i] = G::dexp_inv(Algebra(-u)) * xi;
      L[i] = body_.acceleration(xi, stage_force(s, i == 0 ? 0.0 : a[i] * h, u, xi));
      u_sum += b[i] * K[i];
      xi_sum += b[i] * L[i];
    }
    qnew_ = s.q;
    G::compose_at(Retraction::Exp, Algebra(h * u_sum), qnew_.template head<d>());
    const Algebra xi1 = xi0 + h * xi_sum;
    G::coordinate_velocity_at(qnew_.template head<d>(), xi1, vnew_);
    if (!qnew_.allFinite() || !vnew_.allFinite())
      throw StepFailure("RKMK4 produced a non-finite state", std::numeric_limits<double>::infinity());
    s.q = qnew_;
    s.v = vnew_;
    s.t += h;
  }

  Traits traits() const override { return {4, false, true, {}}; }

 private:
  using Algebra = typename G::Algebra;
  // f at the stage (t_n + c h, g_n exp(u), ξ); only with forces (builds the stage state)
  Algebra stage_force(const State& s, double dt, const Algebra& u, const Algebra& xi) {
    if (!model_->has_forces()) return Algebra::Zero();
    qs_ = s.q;
    G::compose_at(Retraction::Exp, u, qs_.template head<G::coordinates>());
    G::coordinate_velocity_at(qs_.template head<G::coordinates>(), xi, vs_);
    return body_.force(s.t + dt, qs_, vs_);
  }

  const LieGroupModel* model_ = nullptr;
  LieBodyDynamics<G> body_;
  int nq_ = 0;
  Vec qs_, qnew_, vs_, vnew_;
};

/// The plugin: RKMK4On<G> for the system's group, chosen in bind().
class RKMK4 final : public Integrator {
 public:
  void bind(const System& s) override {
    if (dynamic_cast<const LieGroupModel*>(&s) == nullptr && dynamic_cast<const UnitQuaternionCoordinates*>(&s) != nullptr) {
      impl_ = std::make_unique<rkmk4::OnUnitQuaternions>();
    } else {
      const LieGroupModel& m = require<LieGroupModel>(s, name());
      switch (m.group()) {
        case LieGroup::SE2: impl_ = std::make_unique<RKMK4On<SE2>>(); break;
        case LieGroup::SO3: impl_ = std::make_unique<RKMK4On<SO3>>(); break;
      }
    }
    impl_->set_name(name());
    impl_->bind(s);
  }
  Traits traits() const override { return {4, false, true, {}}; }
  void start(const State& s) override { impl_->start(s); }
  void step(State& s, double h) override { impl_->step(s, h); }

 private:
  std::unique_ptr<OpenIntegrator> impl_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rkmk4";
  d.kind = PluginKind::Integrator;
  d.version = "1.2.0";
  d.summary =
      "Runge-Kutta-Munthe-Kaas of order 4 (exp map): on SE(2) or SO(3) for LieGroupModels without shape, and on the "
      "unit quaternions of an L-and-A model that declares them (the rolling bodies)";
  d.seed = "issue 29; Munthe-Kaas, Appl. Numer. Math. 29 (1999), Algorithm 1";
  d.make_integrator = [](const Parameters&, const PluginFactory&) { return std::make_unique<RKMK4>(); };
  // a Lie-group model without shape variables (the connection's derivatives are not in the model;
  // bind() refuses them too), or an L-and-A model with unit-quaternion coordinates, whose other
  // holonomic constraints and moving constraints A(q)v + b(t, q) = 0 the field treats as under rk4
  d.needs = fixed_needs({"ShapeFree or " + std::string(UnitQuaternionCoordinates::model_name), treats("HolonomicConstraints"),
                         treats("AffineConstraints")});
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
