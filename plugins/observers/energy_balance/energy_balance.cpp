// The energy balance of a ConstrainedLagrangian system whose energy is not conserved (issue 30): with
// L = ½vᵀM(q)v − V(q), moving constraints A(q)v + b(t, q) = 0 and an external force F(t, q, v),
//   dE/dt = vᵀ(Aᵀλ + F) = λᵀ(A v) + vᵀF = −λᵀb(t, q) + vᵀF(t, q, v)           (README "Moving constraints")
// (the Coriolis terms do no work: vᵀ(Ṁv − ½∂_q(vᵀMv)) = ½vᵀṀv cancels d/dt ½vᵀMv's), λ the continuous
// field's multipliers at the state (core/nonholonomic_field.hpp). Columns: W(t) = ∫₀ᵗ P dt (Simpson,
// power_quadrature.hpp) and the balance E(t) − E(0) − W(t), zero for the exact motion: what a study
// checks instead of E − E(0) when the constraints move. Without b and F it is the energy error.
// A potential U(t, q) that changes in time (core/time_dependent_potential.hpp) is part of E and its
// force −∂U/∂q part of F: P then gains vᵀ∂U/∂q + ∂U/∂t, which leaves U's own power ∂U/∂t:
//   P = −λᵀb + vᵀ(F + ∂U/∂q) + ∂U/∂t.
#include <cmath>
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/core/time_dependent_potential.hpp>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/plugin/needs.hpp>
#include "power_quadrature.hpp"

namespace {
using namespace dalembert;

class EnergyBalance final : public Observer {
 public:
  void bind(const System& s, const Integrator& integrator) override {
    system_ = &s;
    model_ = &require<ConstrainedLagrangian>(s, "energy_balance", Treats::HolonomicConstraints | Treats::AffineConstraints);
    affine_ = affine_constraint_of(*model_);
    time_potential_ = time_dependent_potential_of(*model_);
    field_.bind(*model_);
    const int n = model_->dof(), r = model_->num_constraints();
    qd_.resize(n);
    vd_.resize(n);
    f_.resize(n);
    gU_.resize(n);
    b_.resize(r);
  }
  void columns(std::vector<std::string>& c) const override { c = {"power", "constraint_work", "energy_balance"}; }
  bool needs_energy() const override { return true; }
  void start(const State& s0) override {
    e0_ = system_->energy(s0);
    power_ = power(s0);
    quadrature_.start(s0.t, power_);
    balance_ = max_abs_ = 0.0;
  }
  void step(const State& s, const StepValues& v) override {
    power_ = power(s);
    balance_ = v.energy - e0_ - quadrature_.add(s.t, power_);
    running_max(max_abs_, std::abs(balance_));
  }
  // The impact map's jump of E is not the constraints' work: the balance continues across it.
  void impact(const State&, const State& post, int) override {
    e0_ = system_->energy(post) - quadrature_.work() - balance_;
    quadrature_.start(post.t, power(post), quadrature_.work());
  }
  void observe(const State&, const StepValues&, double* out) override {
    out[0] = power_;
    out[1] = quadrature_.work();
    out[2] = balance_;
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("max_abs_energy_balance", max_abs_);
    out.emplace_back("final_energy_balance", balance_);
    out.emplace_back("final_constraint_work", quadrature_.work());
  }

 private:
  /// P = −λᵀb(t, q) + vᵀF(t, q, v) (+ vᵀ∂U/∂q + ∂U/∂t: the header).
  double power(const State& s) {
    field_.evaluate(s.t, s.q, s.v, qd_, vd_);
    double P = 0.0;
    if (affine_) {
      affine_->affine_term(s.t, s.q, b_);
      P -= field_.multiplier().dot(b_);
    }
    if (model_->has_external_force()) {
      model_->external_force(s.t, s.q, s.v, f_);
      P += s.v.dot(f_);
    }
    if (time_potential_) {  // U's force is in F: its power is ∂U/∂t (the header)
      time_potential_->time_potential_gradient(s.t, s.q, gU_);
      P += s.v.dot(gU_) + time_potential_->time_potential_rate(s.t, s.q);
    }
    return P;
  }

  const System* system_ = nullptr;
  const ConstrainedLagrangian* model_ = nullptr;
  const AffineConstraint* affine_ = nullptr;
  const TimeDependentPotential* time_potential_ = nullptr;
  NonholonomicVectorField field_;
  PowerQuadrature quadrature_;
  Vec qd_, vd_, f_, gU_, b_;
  double e0_ = 0.0, power_ = 0.0, balance_ = 0.0, max_abs_ = 0.0;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "energy_balance";
  d.kind = PluginKind::Observer;
  d.version = "1.1.0";
  d.summary = "Power of the moving constraints, external forces and a time-dependent potential, its integral W and the balance E - E0 - W "
              "(zero for the exact motion); summaries max |E - E0 - W| and the final W";
  d.make_observer = [](const Parameters&) { return std::make_unique<EnergyBalance>(); };
  d.needs = fixed_needs({ConstrainedLagrangian::model_name});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
