// The nonholonomic Newmark method F_h^{β,β′,α} (seed 000 Def. 3.1 + Sec. 3.4; spec 000 §3.2),
// generic over any ConstrainedLagrangian system with constant mass matrix. The discrete equations
// (N1)–(N4) and their Jacobians live in <dalembert/math/newmark_residual.hpp>; this file chooses
// the reduced system (β ≠ 0: Newton on (Q, λ, λ′); β = 0: Newton on λ, then a linear solve for λ′),
// solves it, and commits the new state.
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <dalembert/math/newmark_residual.hpp>
#include <dalembert/math/newton.hpp>
#include <dalembert/plugin/export.hpp>
#include <iostream>

namespace {

using namespace dalembert;
using nlohmann::json;

class NonholonomicNewmark final : public Integrator {
 public:
  NonholonomicNewmark(NewmarkParameters p, NewtonOptions newton) : p_(p), newton_options_(newton) {}

  void bind(const System& s) override {
    const auto& model = require<ConstrainedLagrangian>(s, name());
    if (!model.constant_mass())
      throw Error("integrator '" + name() + "' needs a constant mass matrix (spec 000 §2.0); system '" + s.name() +
                  "' has a configuration-dependent M(q)");
    if (model.has_external_force())
      throw Error("integrator '" + name() + "' does not support external forces yet; system '" + s.name() +
                  "' has one");
    // Remark 3.3 / spec 000 §3.5.5, §6.12: β + β′ = ½ makes the scheme ill-conditioned and inconsistent.
    if (std::abs(p_.beta + p_.beta_prime - 0.5) < 1e-8) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "warning: integrator '%s': beta + beta_prime = %.17g + %.17g = 1/2: nonholonomic Newmark is "
                    "ill-conditioned and inconsistent there (seed 000 Remark 3.3, spec 000 §3.5.5)",
                    name().c_str(), p_.beta, p_.beta_prime);
      std::cerr << buf << '\n';
    }
    equations_.bind(model);
    equations_.set_parameters(p_);
    n_ = model.dof();
    r_ = model.num_constraints();
    const int m = fast_path() ? r_ : n_ + 2 * r_;
    newton_.resize(m);
    u_.resize(n_ + 2 * r_);
    lambda_.resize(r_);
    v_next_.resize(n_);
    phi_.resize(r_);
    names_ = {"discrete_constraint_residual"};
    for (const char* base : {"lambda", "lambda_prime"})
      for (int a = 0; a < r_; ++a) names_.push_back(r_ == 1 ? std::string(base) : base + ("_" + std::to_string(a)));
    names_.push_back("newton_iterations");
    values_.assign(names_.size(), 0.0);
  }

  void step(State& s, double h) override {
    equations_.begin_step(s.q, s.v, h);
    auto Q = u_.head(n_);
    auto lambda = u_.segment(n_, r_);
    auto lambda_prime = u_.tail(r_);
    NewtonReport report;
    // The multipliers enter Q only through h²/2·Bλ, so their round-off floor is ~ε|q|/h²: on the
    // very short fractional steps of impact location (h ~ 1e−6) Newton stagnates there, with Q
    // already exact to round-off. Let the stagnation test know that floor (no effect for h ≳ 1e−3).
    NewtonOptions options = newton_options_;
    const double eps = std::numeric_limits<double>::epsilon();
    options.stagnation_floor =
        std::max(options.stagnation_floor, 64.0 * eps * (1.0 + s.q.lpNorm<Eigen::Infinity>()) / (h * h));
    if (fast_path()) {
      // β = 0: Φ(q_k, Q(λ)) = 0 on r unknowns, Q(λ) explicit by (N1); then λ′ linear by (N2)+(N4).
      equations_.continuous_multiplier(lambda_);  // initial guess (spec 000 §3.2 item 4)
      report = newton_.solve([this](const Vec& l, Vec& R) { equations_.explicit_residual(l, R); },
                             [this](const Vec& l, Mat& J) { equations_.explicit_jacobian(l, J); }, lambda_,
                             options);
      lambda = lambda_;
      equations_.explicit_position(lambda, Q);
      equations_.solve_lambda_prime(Q, lambda, lambda_prime);
    } else {
      // β ≠ 0: reduced Newton system R(Q, λ, λ′) = 0 (spec 000 §3.2 items 1–5).
      equations_.continuous_multiplier(lambda_);
      equations_.initial_guess(lambda_, u_);
      report = newton_.solve([this](const Vec& u, Vec& R) { equations_.residual(u, R); },
                             [this](const Vec& u, Mat& J) { equations_.jacobian(u, J); }, u_, options);
    }
    // v_{k+1} = V(Q, λ, λ′) from (N2) (spec 000 §3.2 item 6).
    equations_.velocity(u_, v_next_);
    equations_.discrete_constraint(Q, phi_);
    if (!u_.allFinite() || !v_next_.allFinite())
      throw StepFailure("nonholonomic Newmark: non-finite q_{k+1}, v_{k+1} or multipliers", phi_.lpNorm<Eigen::Infinity>(),
                        report.iterations);

    // Commit.
    s.q = Q;
    s.v = v_next_;
    s.t += h;
    values_[0] = phi_.lpNorm<Eigen::Infinity>();
    for (int a = 0; a < r_; ++a) {
      values_[1 + a] = lambda[a];
      values_[1 + r_ + a] = lambda_prime[a];
    }
    values_.back() = report.iterations;
  }

  Traits traits() const override {
    Traits t;
    const bool symmetric = p_.beta == p_.beta_prime && p_.alpha == 0.5;  // Prop 3.4 (needs β+β′ ≠ ½)
    // β + β′ = ½ is inconsistent (spec 000 §3.5.5, §6.12): declared order 0, so the audit agrees.
    const bool consistent = std::abs(p_.beta + p_.beta_prime - 0.5) > 1e-8;
    t.order = !consistent ? 0 : symmetric ? 2 : 1;
    t.symmetric = symmetric;
    t.explicit_method = p_.beta == 0.0 && p_.beta_prime == 0.0 && p_.alpha == 0.0;  // Prop 3.8
    t.preserves = {"constraint", "discrete_constraint"};
    return t;
  }

  void quantity_names(std::vector<std::string>& names) const override { names = names_; }
  void discrete_quantities(double* out) const override { std::copy(values_.begin(), values_.end(), out); }

 private:
  bool fast_path() const { return p_.beta == 0.0; }

  NewmarkParameters p_;
  NewtonOptions newton_options_;
  NewmarkResidual equations_;
  NewtonSolver newton_;
  int n_ = 0, r_ = 0;
  Vec u_, lambda_, v_next_, phi_;
  std::vector<std::string> names_;
  std::vector<double> values_;
};

std::unique_ptr<Integrator> make(const Parameters& p, const PluginFactory&) {
  NewmarkParameters np;
  np.beta = p.number("beta");
  np.beta_prime = p.number("beta_prime");
  np.alpha = p.number("alpha");
  np.discretization =
      p.string("constraint_discretization") == "15" ? ConstraintDiscretization::Eq15 : ConstraintDiscretization::Eq14;
  NewtonOptions opt;
  opt.tolerance = p.number("newton_tolerance");
  // At β + β′ = ½ the Jacobian is near-singular (Remark 3.3): iterates wander with R at round-off;
  // any of them solves (N1)–(N4), so there accept a residual at round-off level. Consistent
  // schemes keep the plain step criterion.
  if (std::abs(p.number("beta") + p.number("beta_prime") - 0.5) <= 1e-8) opt.residual_tolerance = 1e-12;
  opt.max_iterations = static_cast<int>(p.integer("newton_max_iterations"));
  opt.finite_difference_jacobian = p.boolean("finite_difference_jacobian");
  return std::make_unique<NonholonomicNewmark>(np, opt);
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "nonholonomic_newmark";
  d.kind = PluginKind::Integrator;
  d.version = "1.0.0";
  d.summary = "Nonholonomic Newmark F_h^{beta,beta',alpha}: order 2 if beta = beta' and alpha = 1/2, else 1";
  d.seed = "000 (Anahory Simoes, Ferraro, Marrero, Martin de Diego; Def 3.1, Sec 3.4)";
  d.params = {
      {"beta", ParamType::Number, 0.0,
       "weight of Gamma_nh(q_{k+1}) in the forward exponential map (N1); beta = 0 is the fast, explicit-in-Q path"},
      {"beta_prime", ParamType::Number, 0.0,
       "weight of Gamma_nh(q_k) in the backward exponential map (N2); Newmark gamma = 1/2 + beta - beta_prime"},
      {"alpha", ParamType::Number, 0.5, "point of the discrete constraint Phi between q_k (0) and q_{k+1} (1)", 0.0, 1.0},
      {"constraint_discretization", ParamType::String, "14",
       "discrete constraint: \"14\" mu((1-alpha)q_k + alpha q_{k+1}), or \"15\" (1-alpha)mu(q_k) + alpha mu(q_{k+1})",
       -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), {"14", "15"}},
      {"newton_tolerance", ParamType::Number, 1e-13, "Newton stops when |delta|_inf <= tol (1 + |u|_inf)", 0.0},
      {"newton_max_iterations", ParamType::Integer, 25, "Newton iterations before the step fails", 1, 1000},
      {"finite_difference_jacobian", ParamType::Boolean, false,
       "use a forward-difference Newton Jacobian instead of the analytic one (for checking)"},
  };
  d.make_integrator = make;
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
