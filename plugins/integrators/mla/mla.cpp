// The modified Lagrange–d'Alembert integrator MLA (seed 002 eqs. (41)/(42), spec 002 §3.2) and,
// compiled with DALEMBERT_MLA_FORCES=0 from this same file, the discrete Lagrange–d'Alembert
// integrator DLA (spec 002 §3.3: MLA with F_d = 0). Generic over any ConstrainedLagrangian system,
// constant M or M(q) (issue 14); the discrete objects (L_d, D1/D2 L_d, F_d^±, ω, P^±, π^±, H|D*) come from
// <dalembert_plugins/discrete_mechanics.hpp>.
//
// Forms (parameter "form"), all giving the same q_k (spec §3.2):
//  * one_step  (default): memory (q_k, π_k) on D*. Solve B(q_k)ᵀP^−(q_k,q_{k+1}) = π_k,
//    ω(q_k,q_{k+1}) = 0 for q_{k+1}; then π_{k+1} = π^+(q_k,q_{k+1}). π_0 = B(q_0)ᵀM v_0.
//  * two_step: memory (q_{k−1}, q_k). Solve B(q_k)ᵀ[P^+(q_{k−1},q_k) − P^−(q_k,q_{k+1})] = 0,
//    ω(q_k,q_{k+1}) = 0. q_1 comes from the one-step solve from (q_0, v_0) (or parameter q1).
//  * multiplier: memory (q_{k−1}, q_k), frame free: unknowns (q_{k+1}, Λ),
//    P^+(q_{k−1},q_k) − P^−(q_k,q_{k+1}) = μ(q_k)ᵀΛ, ω(q_k,q_{k+1}) = 0.
// Parameter q1 (the paper's two-step initial data, Figs 2–6): π_0 = π^−(q_0,q_1) and the first
// step returns q_1 itself.
// State written back: v_k = FL⁻¹(π_k) = B(BᵀMB)⁻¹π_k ∈ D_{q_k}, so E(q_k, v_k) = H|D*(q_k, π_k).
// Holonomic constraints g(q) = 0 (issue 28): D = ker [A; ∂g/∂q] and ω's last rows are g(q_{k+1})/h
// (discrete_mechanics.hpp): g is imposed at position level with SHAKE/RATTLE's multipliers, so
// |g(q_k)| stays at Newton's tolerance; traits then also preserve "holonomic_constraint".
// Moving constraints A(q)v + b(t, q) = 0 (issue 30): ω gains the quadrature of b at t_k + c_i h and
// v_k lies on the affine space (discrete_mechanics.hpp; README "Moving constraints").
// External forces F(t, q, v) (inputs, feedback, −∂U/∂q of a potential U(t, q) that changes in time):
// the forced discrete Lagrange–d'Alembert principle, F_d^± += h Σ b_i (1−c_i | c_i) F(t_{c_i}, q_{c_i},
// Δq/h) in both plugins (discrete_mechanics.hpp; README "External forces").
// Newton (spec §3.2): unknown Δq = q_{k+1} − q_k, initial guess h v_k (one-step; with M(q) and a
// kept Jacobian the increment extrapolated from the last guess_order ones, README) or q_k − q_{k−1}
// (two-step, i.e. q_{k+1} = 2q_k − q_{k−1}); Jacobian from the model's derivatives (parameter
// jacobian = "model", issue 14: DiscreteNonholonomicMechanics::legendre_minus_jacobian and
// constraint_jacobian) or by central differences of the residual ("central_difference", step
// 1e-7 max(1,|u_j|)); stops at ‖δ‖ ≤ tol(1+‖u‖) or at the round-off floor; fails if the residual is
// above 1e-9.
#include <Eigen/Cholesky>
#include <cmath>
#include <limits>
#include <dalembert_plugins/discrete_mechanics.hpp>
#include <dalembert/core/step_aware.hpp>
#include <dalembert/schemes/increment_extrapolation.hpp>
#include <dalembert/schemes/newton.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/plugin/needs.hpp>

#ifndef DALEMBERT_MLA_FORCES
#define DALEMBERT_MLA_FORCES 1
#endif

namespace {

using namespace dalembert;
using nlohmann::json;

enum class Form { OneStep, TwoStep, Multiplier };

constexpr bool kForces = DALEMBERT_MLA_FORCES != 0;
constexpr const char* kName = kForces ? "mla" : "dla";

class ModifiedLagrangeDalembert final : public Integrator, public StepAware {
 public:
  ModifiedLagrangeDalembert(DiscreteRule rule, Form form, NewtonOptions opt, double fail_residual, Vec q1,
                            bool model_jacobian, int guess_order)
      : rule_(std::move(rule)),
        form_(form),
        opt_(opt),
        fail_residual_(fail_residual),
        q1_(std::move(q1)),
        model_jacobian_(model_jacobian),
        guess_order_(guess_order) {}

  void bind(const System& s) override {
    const auto& model = require<ConstrainedLagrangian>(s, name(), Treats::HolonomicConstraints | Treats::AffineConstraints);
    dm_.bind(model, rule_, kForces);
    n_ = dm_.n();
    r_ = dm_.r();
    k_ = dm_.k();
    ra_ = dm_.nonholonomic();
    holonomic_ = dm_.holonomic();
    if (q1_.size() != 0 && q1_.size() != n_)
      throw Error("integrator '" + name() + "': parameter q1 has " + std::to_string(q1_.size()) +
                  " components; system '" + s.name() + "' has " + std::to_string(n_));
    // One-step Newton on Δq (n unknowns); the multiplier form on (Δq, Λ) (n + r unknowns).
    newton_.resize(n_);
    // M(q) (issue 28 item 6): the Newton Jacobian of the discrete Legendre transform holds ∂_q(M v)
    // and ½∂²_q(vᵀMv) (and MLA's ∂F_d/∂u by differences), many times the residual's cost, and at
    // small h it is dominated by M/h, which changes by O(h) per step: the solvers keep it across
    // iterations and steps (NewtonSolverT::reuse_jacobian; same root to the Newton tolerance). A
    // constant M keeps a fresh Jacobian per iteration (the seeds' runs, unchanged).
    reuse_jacobian_ = !model.constant_mass();
    newton_.reuse_jacobian(reuse_jacobian_);
    newton_multiplier_.reuse_jacobian(reuse_jacobian_);
    u_.resize(n_);
    jac_[0].resize(n_);
    newton_multiplier_.resize(n_ + r_);
    w_.resize(n_ + r_);
    jac_[1].resize(n_ + r_);
    q_prev_.resize(n_);
    increments_.resize(n_, reuse_jacobian_ ? guess_order_ : 0);
    q_.resize(n_);
    q_next_.resize(n_);
    pi_.resize(k_);
    pi_next_.resize(k_);
    pi_tmp_.resize(k_);
    P_.resize(n_);
    Pplus_.resize(n_);
    B_.resize(n_, k_);
    A_.resize(r_, n_);
    JP_.resize(n_, n_);
    omega_.resize(r_);
    g_.resize(holonomic_);
    Jg_.resize(holonomic_, n_);
    JJt_.resize(holonomic_, holonomic_);
    jjt_llt_ = Eigen::LLT<Mat>(holonomic_);
    v_.resize(n_);
    names_ = {"discrete_energy", "discrete_constraint_residual", "momentum_matching_residual", "newton_iterations",
              "two_step_initial_data", "initial_discrete_energy"};  // H_0 last (tests read it there)
    values_.assign(names_.size(), 0.0);
  }

  // The runner's step size for the next start() (StepAware): with two-step data, H_0 at t_0.
  void expect_step(double h) override { h_hint_ = h; }

  void start(const State& s) override {
    newton_.invalidate_jacobian();  // a new state: the kept Jacobian (M(q)) is of another residual
    newton_multiplier_.invalidate_jacobian();
    h_jacobian_ = 0.0;
    increments_.reset();
    q_ = s.q;
    t_ = s.t;
    steps_ = 0;
    have_prev_ = false;
    h_last_ = 0.0;
    values_[4] = q1_.size() != 0 ? 1.0 : 0.0;  // s.v is not initial data when q_1 is given
    if (q1_.size() != 0) {
      // Paper initial data (q_0, q_1): π_0 = π^−(q_0, q_1) (spec §3.1, A5); it needs h. With the
      // runner's hint, H_0 = H|D*(q_0, π_0) is published now (the t_0 row); without it (an integrator
      // driven by hand), at the first step. The first step recomputes π_0 with its own h.
      q1_pending_ = true;
      values_[0] = values_[5] = std::nan("");
      if (h_hint_ != 0.0 && std::isfinite(h_hint_)) {
        dm_.momentum_minus(q_, q1_, h_hint_, pi_);
        values_[0] = values_[5] = dm_.hamiltonian(s.t, q_, pi_);
      }
    } else {
      // π_0 = B(q_0)ᵀ M v_0 (spec §3.2 one-step form, item 3).
      q1_pending_ = false;
      dm_.momentum_from_velocity(q_, s.v, pi_);
      values_[0] = values_[5] = dm_.hamiltonian(s.t, q_, pi_);  // H_0 = H|D*(q_0, π_0)
    }
    values_[1] = values_[2] = values_[3] = 0.0;
    h_hint_ = 0.0;  // the hint concerns this start only
  }

  void step(State& s, double h) override {
    // Restart only when the state was moved from outside (an impact, a new run); the runner
    // rewrites t as t0 + k h, which may differ from our sum of steps by round-off.
    if (s.q.size() != n_ || s.q != q_ || std::abs(s.t - t_) > 1e-9 * (1.0 + std::abs(t_))) start(s);
    dm_.at_time(s.t);  // t_k: the nodes of a moving constraint's b(t, q) (issue 30)
    if (reuse_jacobian_ && h != h_jacobian_) {  // the kept Jacobian is one of another step size
      newton_.invalidate_jacobian();
      newton_multiplier_.invalidate_jacobian();
      h_jacobian_ = h;
      increments_.reset();
    }
    NewtonReport rep;
    double matching = 0.0;
    if (q1_pending_) {
      // First step of the paper's data: π_0 = π^−(q_0,q_1), q_1 given; H_0 published before.
      q_next_ = q1_;
      dm_.momentum_minus(q_, q_next_, h, pi_);
      values_[5] = dm_.hamiltonian(s.t, q_, pi_);  // H_0 = H|D*(q_0, π^−(q_0,q_1)) (spec §3.1)
    } else if (form_ == Form::OneStep || !have_prev_ || h * h_last_ < 0.0) {
      // (A step back after a step forward: the pair (q_{k−1}, q_k) is the wrong way round for the
      // two-step forms, and (q_k, π_k) is the state of the one-step map, whose step of −h undoes h.)
      // Solve B(q_k)ᵀP^−(q_k, q_k+u) = π_k, ω(q_k, q_k+u) = 0 (spec §3.2, one-step form, item 1).
      if (increments_.available() >= 2) {
        // M(q), with the kept Jacobian (chord steps, linear convergence): the guess extrapolated
        // from the last m increments (parameter guess_order), error O(h^{m+1}) against O(h²) for
        // h v: each order saves chord iterations (per bicycle step at h = 1e-3: 4.35, 2.27, 1.31 for m = 2, 4, 5).
        increments_.guess(u_);
      } else {
        dm_.velocity(s.t, q_, pi_, v_);
        u_ = h * v_;  // initial guess q_k + h v, v = B(BᵀMB)⁻¹π_k
      }
      rep = solve(h, pi_);
      q_next_ = q_ + u_.head(n_);
    } else if (form_ == Form::TwoStep) {
      // B(q_k)ᵀ[P^+(q_{k−1},q_k) − P^−(q_k,q_{k+1})] = 0 (eq. (42)): π_k recomputed from the pair.
      dm_.at_time(s.t - h);  // the pair (q_{k−1}, q_k) spans [t_k − h, t_k]: MLA's F_d^+ there (issue 30)
      dm_.momentum_plus(q_prev_, q_, h, pi_tmp_);
      dm_.at_time(s.t);
      u_ = q_ - q_prev_;  // q_{k+1} = 2q_k − q_{k−1}
      rep = solve(h, pi_tmp_);
      q_next_ = q_ + u_.head(n_);
    } else {
      // Multiplier form (spec §3.2): P^+(q_{k−1},q_k) − P^−(q_k,q_{k+1}) − μ(q_k)ᵀΛ = 0, ω = 0.
      dm_.at_time(s.t - h);  // as in the two-step form
      dm_.legendre_plus(q_prev_, q_, h, Pplus_);
      dm_.at_time(s.t);
      w_.head(n_) = q_ - q_prev_;
      w_.tail(r_).setZero();
      dm_.model().constraint_matrix(q_, A_);
      auto residual = [this, h](const Vec& u, Vec& R) { multiplier_residual(u, h, R); };
      auto jacobian = [this, h, &residual](const Vec& u, Mat& J) {
        if (!model_jacobian_) return central_jacobian(residual, u, J);
        // [−∂P^−/∂u, −μ(q_k)ᵀ; ∂ω/∂u, 0]
        q_next_ = q_ + u.head(n_);
        dm_.legendre_minus_jacobian(q_, q_next_, h, JP_);
        J.topLeftCorner(n_, n_) = -JP_;
        J.topRightCorner(n_, r_) = -A_.transpose();
        dm_.constraint_jacobian(q_, q_next_, h, J.bottomLeftCorner(r_, n_));
        J.bottomRightCorner(r_, r_).setZero();
      };
      rep = newton_multiplier_.solve(residual, jacobian, w_, opt_);
      if (reuse_jacobian_ && !kept_jacobian_converged(rep)) {  // as in solve()
        newton_multiplier_.invalidate_jacobian();
        rep = newton_multiplier_.solve(residual, jacobian, w_, opt_);
      }
      check(rep);
      q_next_ = q_ + w_.head(n_);
    }
    if (holonomic_ > 0 && !q1_pending_) project_holonomic_round_off();
    // π_{k+1} = π^+(q_k, q_{k+1}) (spec §3.2 item 2); also the momentum-matching check (claim 14).
    // Momentum matching (eq. (42), claim 14): |π^−(q_k,q_{k+1}) − π_k|, where the carried π_k is
    // π^+(q_{k−1},q_k) (or π_0). Both momenta from one pass over the quadrature nodes.
    dm_.momenta(q_, q_next_, h, pi_tmp_, pi_next_);
    matching = (pi_tmp_ - pi_).lpNorm<Eigen::Infinity>();
    dm_.constraint(q_, q_next_, h, omega_);
    dm_.velocity(s.t + h, q_next_, pi_next_, v_);
    if (!q_next_.allFinite() || !v_.allFinite())
      throw StepFailure(std::string(kName) + ": non-finite q_{k+1} or pi_{k+1}", rep.residual_norm, rep.iterations);

    // Commit.
    const double H = dm_.hamiltonian(s.t + h, q_next_, pi_next_);
    if (reuse_jacobian_) increments_.push(q_next_ - q_);  // the increments of the guess above
    q_prev_ = q_;
    have_prev_ = true;
    h_last_ = h;
    q_ = q_next_;
    pi_ = pi_next_;
    q1_pending_ = false;
    ++steps_;
    s.q = q_;
    s.v = v_;
    s.t += h;
    t_ = s.t;
    values_[0] = H;
    // |ω| of A's rows: g(q_{k+1}) is the system's holonomic residual (observer constraint_residual)
    values_[1] = holonomic_ == 0 ? omega_.lpNorm<Eigen::Infinity>()
                                 : (ra_ > 0 ? omega_.head(ra_).lpNorm<Eigen::Infinity>() : 0.0);
    values_[2] = matching;
    values_[3] = rep.iterations;
  }

  Traits traits() const override {
    Traits t;
    t.order = 2;  // observed (spec 002 §5 claim 17); the paper claims no order (A9)
    t.symmetric = rule_.name == "midpoint" || rule_.name == "trapezoidal" || rule_.name == "gauss2";
    t.explicit_method = false;
    t.preserves = {"discrete_constraint"};
    if (holonomic_ > 0) t.preserves.emplace_back("holonomic_constraint");  // g(q_k) = 0 (bound to such a system)
    return t;
  }

  void quantity_names(std::vector<std::string>& names) const override { names = names_; }
  void discrete_quantities(double* out) const override {
    std::copy(values_.begin(), values_.end(), out);
  }

 private:
  // R(u) = [B(q_k)ᵀP^−(q_k, q_k+u) − π ; ω(q_k, q_k+u)] (spec §3.2), π the momentum to match.
  NewtonReport solve(double h, const Vec& pi) {
    dm_.frame().evaluate(q_, B_);
    pi_target_ = &pi;
    auto residual = [this, h](const Vec& u, Vec& R) {
      q_next_ = q_ + u;
      dm_.legendre_minus(q_, q_next_, h, P_);
      R.head(k_).noalias() = B_.transpose() * P_;
      R.head(k_) -= *pi_target_;
      dm_.constraint(q_, q_next_, h, omega_);
      R.tail(r_) = omega_;
    };
    auto jacobian = [this, h, &residual](const Vec& u, Mat& J) {
      if (!model_jacobian_) return central_jacobian(residual, u, J);
      // [B(q_k)ᵀ ∂P^−/∂u; ∂ω/∂u]
      q_next_ = q_ + u;
      dm_.legendre_minus_jacobian(q_, q_next_, h, JP_);
      J.topRows(k_).noalias() = B_.transpose() * JP_;
      dm_.constraint_jacobian(q_, q_next_, h, J.bottomRows(r_));
    };
    NewtonReport rep = newton_.solve(residual, jacobian, u_, opt_);
    if (reuse_jacobian_ && !kept_jacobian_converged(rep)) {
      // Stopped on a kept Jacobian above the round-off of q_k + u, or with a residual above the
      // failure threshold (its bound before the last step): once more from there with a fresh
      // one, as without reuse.
      newton_.invalidate_jacobian();
      rep = newton_.solve(residual, jacobian, u_, opt_);
    }
    check(rep);
    return rep;
  }

  /// g(q_{k+1}) = 0 holds to Newton's stop, which leaves it above g's own round-off once the
  /// coordinates have grown: a ball that has rolled 10–100 radii away keeps |p| − 1 at 2–4e-14, the
  /// representation error ε|x| of its position spread into p by the solve (more Newton steps do not
  /// help). When |g(q_{k+1})|∞ > 16ε, one Euclidean projection step q ← q − Jᵀ(JJᵀ)⁻¹g, J = ∂g/∂q,
  /// moves q_{k+1} by that round-off; the discrete equations then hold to the same round-off
  /// (issue 29; the rolling bodies' |p| − 1 ≤ 1e-14).
  void project_holonomic_round_off() {
    dm_.model().holonomic(q_next_, g_);
    if (!(g_.lpNorm<Eigen::Infinity>() > 16.0 * std::numeric_limits<double>::epsilon())) return;
    dm_.model().holonomic_jacobian(q_next_, Jg_);
    JJt_.noalias() = Jg_ * Jg_.transpose();
    jjt_llt_.compute(JJt_);
    jjt_llt_.solveInPlace(g_);
    q_next_.noalias() -= Jg_.transpose() * g_;
  }

  /// A solve on a kept Jacobian (M(q)) counts as converged if its residual is below the failure
  /// threshold and, when it stopped at a round-off floor, its last step is within a few ulps of the
  /// coordinates q_k + u (4ε(1 + ‖q_k‖∞)): the discrete constraint then holds at round-off as with
  /// a fresh Jacobian (tests/configuration_mass: |ω| < 1e-13).
  bool kept_jacobian_converged(const NewtonReport& rep) const {
    if (!(rep.residual_norm <= fail_residual_)) return false;
    const double ulps = 4.0 * std::numeric_limits<double>::epsilon() * (1.0 + q_.lpNorm<Eigen::Infinity>());
    return !rep.stagnated || rep.step_norm <= ulps;
  }

  void multiplier_residual(const Vec& u, double h, Vec& R) {
    q_next_ = q_ + u.head(n_);
    dm_.legendre_minus(q_, q_next_, h, P_);
    R.head(n_) = Pplus_ - P_;
    R.head(n_).noalias() -= A_.transpose() * u.tail(r_);
    dm_.constraint(q_, q_next_, h, omega_);
    R.tail(r_) = omega_;
  }

  // Central differences, step 1e-7 max(1, |u_j|) (spec §3.2).
  struct JacobianBuffers {
    Vec up, um, rp, rm;
    void resize(int m) { up.resize(m), um.resize(m), rp.resize(m), rm.resize(m); }
  };
  template <class Residual>
  void central_jacobian(Residual& residual, const Vec& u, Mat& J) {
    JacobianBuffers& b = jac_[u.size() == n_ ? 0 : 1];
    b.up = u;
    b.um = u;
    for (int j = 0; j < u.size(); ++j) {
      const double d = 1e-7 * std::max(1.0, std::abs(u[j]));
      b.up[j] = u[j] + d;
      b.um[j] = u[j] - d;
      residual(b.up, b.rp);
      residual(b.um, b.rm);
      J.col(j) = (b.rp - b.rm) / (2.0 * d);
      b.up[j] = b.um[j] = u[j];
    }
  }

  void check(const NewtonReport& rep) const {
    if (!(rep.residual_norm <= fail_residual_))
      throw StepFailure(std::string(kName) + ": Newton residual above the failure threshold", rep.residual_norm,
                        rep.iterations);
  }

  DiscreteRule rule_;
  Form form_;
  NewtonOptions opt_;
  double fail_residual_;
  Vec q1_;
  DiscreteNonholonomicMechanics dm_;
  NewtonSolver newton_, newton_multiplier_;
  JacobianBuffers jac_[2];
  int n_ = 0, r_ = 0, k_ = 0, ra_ = 0, holonomic_ = 0;  // r_ = ra_ + holonomic_: the rows of A and of g
  long steps_ = 0;
  double t_ = 0.0;
  bool model_jacobian_;
  bool reuse_jacobian_ = false;  // M(q): Newton keeps its Jacobian across steps (bind())
  double h_jacobian_ = 0.0;      // the step size of the kept Jacobian
  int guess_order_;
  IncrementExtrapolation<Vec> increments_;  // M(q): the last increments at the step size h_jacobian_
  bool have_prev_ = false, q1_pending_ = false;
  double h_hint_ = 0.0;  // StepAware: the runner's h for the next start() (0: none)
  double h_last_ = 0.0;  // the step size of the last step (0: none since start())
  const Vec* pi_target_ = nullptr;
  Vec u_, w_, q_prev_, q_, q_next_, pi_, pi_next_, pi_tmp_, P_, Pplus_, omega_, v_, g_;
  Mat Jg_, JJt_;               // ∂g/∂q and its Gram matrix (project_holonomic_round_off)
  Eigen::LLT<Mat> jjt_llt_;
  Mat B_, A_, JP_;
  std::vector<std::string> names_;
  std::vector<double> values_;
};

std::unique_ptr<Integrator> make(const Parameters& p, const PluginFactory&) {
  const std::string& f = p.string("form");
  const Form form = f == "two_step" ? Form::TwoStep : f == "multiplier" ? Form::Multiplier : Form::OneStep;
  NewtonOptions opt;
  opt.tolerance = p.number("newton_tolerance");
  opt.max_iterations = static_cast<int>(p.integer("newton_max_iterations"));
  Vec q1;
  const JsonCursor j = json_parameter(p, "q1");
  if (!j.json().is_null()) {
    if (!j.json().is_array()) j.fail("q1 must be an array of numbers or null");
    const std::vector<double> xs = j.numbers();
    q1 = Eigen::Map<const Vec>(xs.data(), static_cast<Eigen::Index>(xs.size()));
  }
  return std::make_unique<ModifiedLagrangeDalembert>(DiscreteRule::from_name(p.string("rule")), form, opt,
                                                     p.number("failure_residual"), q1,
                                                     p.string("jacobian") == "model",
                                                     static_cast<int>(p.integer("guess_order")));
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = kName;
  d.kind = PluginKind::Integrator;
  d.version = "1.6.0";  // 1.1: a step back after a step forward in the two-step forms (issue 27); 1.2: g(q) = 0 (issue 28);
                        // 1.3: M(q): kept Jacobian, extrapolated guess (guess_order) (issue 28 item 6);
                        // 1.4: q_{k+1} projected onto g = 0 when |g| > 16 eps (issue 29);
                        // 1.5: moving constraints A(q)v + b(t, q) = 0: ω gains Σ b_i b(t_k + c_i h, q_{c_i}) (issue 30)
                        // 1.6: external forces F(t, q, v) and U(t, q): F_d^± gain their quadrature (issue 30)
  d.summary = kForces ? "Modified Lagrange-d'Alembert (MLA): midpoint L_d, discrete forces F_d^+-, midpoint M_d; order 2"
                      : "Discrete Lagrange-d'Alembert (DLA): MLA without discrete forces; order 2";
  d.seed = kForces ? "002 (Anahory Simoes, Marrero, Martin de Diego; eqs. (41)/(42), Sect. 5.4)"
                   : "002 (Sect. 5.4, comparison method; Cortes-Martinez)";
  const double inf = std::numeric_limits<double>::infinity();
  d.params = {
      {"form", ParamType::String, "one_step",
       "one_step: (q, pi) on D*; two_step: (q_{k-1}, q_k) momentum matching in D*; multiplier: frame-free two-step",
       -inf, inf, {"one_step", "two_step", "multiplier"}},
      {"rule", ParamType::String, "midpoint", "quadrature of L_d, F_d and the discrete constraint", -inf, inf,
       {"midpoint", "trapezoidal", "gauss2"}},
      {"q1", ParamType::Json, nullptr,
       "optional second point q_1 (the paper's two-step initial data): pi_0 = pi^-(q_0, q_1), the first step returns q_1"},
      {"jacobian", ParamType::String, "model",
       "Newton Jacobian: model (from the system's derivatives, AD for an L-and-A system; MLA's discrete forces by "
       "central differences) or central_difference (of the whole residual)",
       -inf, inf, {"model", "central_difference"}},
      {"guess_order", ParamType::Integer, 5,
       "M(q) systems (kept Newton Jacobian): the one-step guess extrapolated from the last guess_order increments "
       "(error O(h^(order+1))); below 2: h v",
       0, IncrementExtrapolation<Vec>::kMaxOrder},
      {"newton_tolerance", ParamType::Number, 1e-15, "Newton stops when |delta|_inf <= tol (1 + |u|_inf)", 0.0},
      {"newton_max_iterations", ParamType::Integer, 25, "Newton iterations before the step fails", 1, 1000},
      {"failure_residual", ParamType::Number, 1e-9, "a step fails if the final residual is above this (spec 002 §3.2)",
       0.0},
  };
  d.make_integrator = make;
  d.needs = fixed_needs({ConstrainedLagrangian::model_name, treats("HolonomicConstraints"), treats("AffineConstraints")});
  d.examples = {{"one_step midpoint", {{"form", "one_step"}}},
                {"two_step", {{"form", "two_step"}}},
                {"multiplier", {{"form", "multiplier"}}}};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
