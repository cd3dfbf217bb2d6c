// The exact discrete nonholonomic flow (seed 002 Sects. 3.2, 5.2, eqs. (34)–(39), Theorem 5.5;
// spec 002 §3.4), generic over any ConstrainedLagrangian system, constant M or M(q). The reference
// against which MLA and DLA are judged.
//
//  * one_step (default): the exact discrete flow on D*, π ↦ FL(φ_h(FL⁻¹π)): the continuous flow
//    sampled at t_k (spec §3.4 "One-step version").
//  * two_step: (q_{k−1}, q_k) ∈ M^e_h ↦ q_{k+1} = τφ_h(R^{e+}(q_{k−1},q_k)) (eq. (35)), with the
//    exact retraction R^{e−} found by shooting in D (v0 = B(q_{k−1})u, Gauss–Newton on
//    τφ_h(q_{k−1}, Bu) = q_k). q_1 comes from the flow from (q_0, v_0).
// The continuous flow is integrated by Gragg–Bulirsch–Stoer extrapolation with K = 4 levels
// (order 8, <dalembert/math/extrapolation.hpp>) with equal substeps ≤ max_substep (default 0.05),
// as many as the error control needs for every substep's estimated local error ≤ tol (1 + |y_i|)
// (default tol 1e-12; issue 26: fixed substeps of 0.05 left 4e-7 on the tilted rolling disk at t = 50).
// After each step the round-off drift of A(q)v is removed (parameter project, default true).
// Holonomic constraints g(q) = 0 (issue 28, one_step only): the continuous field keeps their velocity
// form (C = [A; ∂g/∂q]), the projection keeps C(q)v = 0, and g drifts at the inner tolerance.
#include <cmath>
#include <dalembert/core/error_text.hpp>
#include <dalembert_plugins/exact_discrete.hpp>
#include <dalembert/math/llt_storage.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/time_dependent_potential.hpp>
#include <dalembert/plugin/needs.hpp>
#include <dalembert_plugins/holonomic_refusal.hpp>

namespace {

using namespace dalembert;

class ExactDiscreteFlow final : public Integrator {
 public:
  ExactDiscreteFlow(bool two_step, double max_substep, int levels, bool project, double tol)
      : two_step_(two_step), max_substep_(max_substep), levels_(levels), project_(project), tol_(tol) {}

  void bind(const System& s) override {
    if (two_step_)
      refuse_holonomic(s, name(), "its form \"two_step\" shoots in D for q_{k+1} from q_{k-1} and q_k, which "
                                  "g over-determines; its form \"one_step\" treats g");
    // one_step follows the continuous field, which treats moving constraints A v + b(t, q) = 0 (issue 30)
    const auto& model = require<ConstrainedLagrangian>(
        s, name(), two_step_ ? Treats::HolonomicConstraints : Treats::HolonomicConstraints | Treats::AffineConstraints);
    if (two_step_ && model.has_external_force())
      throw Error("integrator '" + name() + "' with form \"two_step\" shoots the autonomous flow (spec 002 §3.4); system '" +
                  s.name() + "' has an external force: use form \"one_step\"");
    model_ = &model;
    time_potential_ = time_dependent_potential_of(model);
    affine_ = affine_constraint_of(model);
    exact_.bind(model, 0.0, max_substep_, levels_, tol_);
    n_ = model.dof();
    r_ = model.num_constraints();
    flow_.bind(model, 0.0, max_substep_, levels_, tol_);
    q_prev_.resize(n_);
    Mv_.resize(n_);
    q_.resize(n_);
    v_.resize(n_);
    v0_.resize(n_);
    A_.resize(r_, n_);
    b_.resize(r_);
    MinvAt_.resize(n_, r_);
    C_.resize(r_, r_);
    phi_.resize(r_);
    mult_.resize(r_);
    size_llt(C_llt_, r_);
    if (flow_.constant_mass()) Minv_ = flow_.mass(q_).inverse();
    names_ = {"discrete_energy", "discrete_constraint_residual"};
    values_.assign(names_.size(), 0.0);
  }

  void start(const State& s) override {
    have_prev_ = false;
    flow_.restart();  // a new trajectory: the substeps do not depend on an earlier run
    exact_.flow().restart();
    q_ = s.q;
    v_ = s.v;
    t_ = s.t;
    values_[0] = energy(q_, v_, t_);
    values_[1] = 0.0;
  }

  void step(State& s, double h) override {
    // Restart only when someone else moved the state (an impact, a new run): the runner rewrites t
    // as t0 + k h, which may differ from our sum of steps by round-off.
    if (s.q != q_ || std::abs(s.t - t_) > 1e-9 * (1.0 + std::abs(t_))) start(s);
    double residual = 0.0;
    q_next_ = q_;
    if (two_step_ && have_prev_) {
      // R^{e+}(q_{k−1}, q_k) by shooting (spec §3.4), then q_{k+1} = τφ_h(q_k, R^{e+}) (eq. (35)).
      residual = exact_.retraction(q_prev_, q_, h, v0_, &v_next_);
      if (!(residual <= 1e-9))
        throw StepFailure("exact_discrete: shooting for R^{e-}(q_{k-1}, q_k) did not reach M^e_h", residual);
    } else {
      v_next_ = v_;
    }
    flow_.flow(q_next_, v_next_, h, s.t);  // φ_h (spec §3.4), from t_k (a forced system reads t)
    if (project_) {
      // Remove round-off drift off D (the exact flow keeps A(q)v = 0; Φ = A v is only a neutral first
      // integral of the extended field, so round-off in Φ grows and feeds dE/dt = λΦ):
      // v ← v − M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹A v, a change at round-off level.
      model_->constraint_matrix(q_next_, A_);
      if (flow_.constant_mass()) {
        MinvAt_.noalias() = Minv_ * A_.transpose();
      } else {
        MinvAt_ = A_.transpose();
        flow_.solve_mass(q_next_, MinvAt_);  // M(q_{k+1})⁻¹Aᵀ
      }
      C_.noalias() = A_ * MinvAt_;
      C_llt_.compute(C_);
      phi_.noalias() = A_ * v_next_;
      if (affine_) add_affine(s.t + h, q_next_);  // onto A v + b(t_{k+1}, q) = 0
      mult_ = C_llt_.solve(phi_);
      v_next_.noalias() -= MinvAt_ * mult_;
    }
    if (!q_next_.allFinite() || !v_next_.allFinite())
      throw StepFailure("exact_discrete: non-finite state from the continuous flow", residual);
    q_prev_ = q_;
    have_prev_ = true;
    q_ = q_next_;
    v_ = v_next_;
    s.q = q_;
    s.v = v_;
    s.t += h;
    t_ = s.t;
    values_[0] = energy(q_, v_, t_);
    if (two_step_) {
      values_[1] = residual;  // |ω^e|: distance of (q_{k−1}, q_k) from M^e_h
    } else {
      model_->constraint_matrix(q_, A_);
      phi_.noalias() = A_ * v_;
      if (affine_) add_affine(t_, q_);
      values_[1] = phi_.lpNorm<Eigen::Infinity>();  // |A(q)v (+ b)|: D is invariant (spec §2.0)
    }
  }

  Traits traits() const override {
    Traits t;
    t.order = 2 * levels_;  // the inner GBS order; the flow is exact up to ODE tolerance
    t.symmetric = false;
    t.explicit_method = !two_step_;
    t.preserves = {"constraint", "energy"};
    return t;
  }
  void quantity_names(std::vector<std::string>& names) const override { names = names_; }
  void discrete_quantities(double* out) const override { std::copy(values_.begin(), values_.end(), out); }

 private:
  // H|D*(q, BᵀMv) = E(q, v) for v ∈ D (spec §2.0).
  double energy(const Vec& q, const Vec& v, double t) {
    Mv_.noalias() = flow_.mass(q) * v;  // into a member buffer: no temporary inside step
    const double E = 0.5 * v.dot(Mv_) + model_->potential(q);
    return time_potential_ ? E + time_potential_->time_potential(t, q) : E;  // + U(t, q) (issue 30)
  }
  const TimeDependentPotential* time_potential_ = nullptr;
  // φ += b(t, q): the moving constraints' term (issue 30), into a member buffer.
  void add_affine(double t, const Vec& q) {
    affine_->affine_term(t, q, b_);
    phi_ += b_;
  }
  const AffineConstraint* affine_ = nullptr;
  Vec b_;
  Vec Mv_;

  bool two_step_;
  double max_substep_;
  int levels_;
  bool project_;
  double tol_;
  const ConstrainedLagrangian* model_ = nullptr;
  ExactDiscrete exact_;
  ForcedFlow flow_;
  int n_ = 0, r_ = 0;
  bool have_prev_ = false;
  double t_ = 0.0;
  Vec q_prev_, q_, v_, q_next_, v_next_, v0_;
  Mat A_, MinvAt_, C_, Minv_;
  Eigen::LLT<Mat> C_llt_;
  Vec phi_, mult_;
  std::vector<std::string> names_;
  std::vector<double> values_;
};

// Below it the GBS error estimate (a difference of two extrapolants of size |y|) is round-off.
constexpr double kSmallestTol = 1e-14;

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "exact_discrete";
  d.kind = PluginKind::Integrator;
  d.version = "1.3.0";  // 1.1: error-controlled inner flow (tol), issue 26; 1.2: two_step without allocation, unforced (issue 27);
                        // 1.3: one_step: an external force F(t, q, v) at the flow's time, U(t, q) in the energy, moving
                        //      constraints A v + b(t, q) = 0 (issue 30)
  d.summary = "Exact discrete nonholonomic flow (continuous flow sampled at t_k, or eq. (35) by shooting); inner "
              "order-8 GBS flow with local error <= tol";
  d.seed = "002 (Anahory Simoes, Marrero, Martin de Diego; Sects. 3.2, 5.2, Theorem 5.5)";
  const double inf = std::numeric_limits<double>::infinity();
  d.params = {
      {"form", ParamType::String, "one_step",
       "one_step: flow on D* (the continuous flow sampled); two_step: (q_{k-1}, q_k) -> q_{k+1} by shooting R^{e-}",
       -inf, inf, {"one_step", "two_step"}},
      {"max_substep", ParamType::Number, 0.05, "largest substep of the inner GBS integrator (tol > 0: the error control takes smaller ones where needed)",
       1e-6, 10.0},
      {"tol", ParamType::Number, 1e-12,
       "local error tolerance of each inner GBS substep, relative to 1 + |q_i|, 1 + |v_i| (equal substeps, as many as "
       "it needs); 0: no control, substeps of max_substep",
       0.0, 1e-3},
      {"project", ParamType::Boolean, true,
       "after each step remove the round-off drift of A(q)v (M-orthogonal projection onto D)"},
      {"levels", ParamType::Integer, 4, "extrapolation levels K of the inner integrator (order 2K)", 2, 10},
  };
  d.make_integrator = [](const Parameters& p, const PluginFactory&) {
    const double tol = p.number("tol");
    if (tol != 0.0 && tol < kSmallestTol)
      throw InputError(p.where("tol"), "tol = " + number_text(tol, "%g") + " is below " + number_text(kSmallestTol, "%g") +
                                           ", what double precision can estimate (0 turns the control off)");
    return std::make_unique<ExactDiscreteFlow>(p.string("form") == "two_step", p.number("max_substep"),
                                               static_cast<int>(p.integer("levels")), p.boolean("project"), tol);
  };
  // The two-step form shoots the autonomous flow from q_{k-1} (spec 002 §3.4): no time-dependent force.
  d.needs = [](const Parameters& p, const PluginFactory&) {
    // One step treats holonomic constraints as the continuous field does (index-reduced; README).
    return p.string("form") == "two_step" ? Needs{ConstrainedLagrangian::model_name, "Unforced"}
                                          : Needs{ConstrainedLagrangian::model_name, treats("HolonomicConstraints"),
                                                  treats("AffineConstraints")};
  };
  d.examples = {{"one_step", {{"form", "one_step"}}},
                {"two_step", {{"form", "two_step"}}},
                {"tol 1e-13", {{"tol", 1e-13}}},
                {"no error control", {{"tol", 0.0}}}};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
