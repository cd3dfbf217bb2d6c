// The error measures (35)–(38) of Baker & Gonzalez (seed 003 §3, spec 003 §5) with the composite
// trapezoid rule on the step grid (A9), for any RigidBodyModel system, plus running extrema of the
// system's diagnostics over EVERY step (invariants such as Rρ0·Ω, P_y, Σ JΩ).
//
//   ‖q‖²_{H1} = ∫ Σ_i (|x_i|² + |v_i|² + |θ_i|² + |Ω_i|²) dt,  |θ_i| = rotation angle of R_i   (35),(36)
//   q-error   = | ‖q_h‖² − ‖q‖² |^{1/2} / ‖q‖                  (37): difference of squared norms
//   E-error   = √(∫ (E_h − E0)² dt) / (|E0| √(t_N − t0))         (38)
// The reference ‖q‖² needs the system's exact solution ("reference": true), sampled on the same
// grid t_k (spec §5). Then also the true H1 difference ∫ Σ (|Δx|² + |Δv|² + |log(R R_refᵀ)|² + |ΔΩ|²)
// (relative, a diagnostic of A9) and the end-point error.
#include <cmath>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert/math/so3.hpp>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class RrpErrorMeasures final : public Observer {
 public:
  explicit RrpErrorMeasures(const Parameters& p) : use_ref_(p.boolean("reference")), track_(p.boolean("track_diagnostics")) {}

  void bind(const System& s, const Integrator&) override {
    system_ = &s;
    model_ = dynamic_cast<const RigidBodyModel*>(&s);
    if (!model_) throw Error("observer 'rrp_error_measures' needs model RigidBodyModel; system '" + s.name() + "' does not provide it");
    if (use_ref_ && !s.has_exact_solution())
      throw Error("observer 'rrp_error_measures': \"reference\": true but system '" + s.name() + "' has no exact solution");
    names_.clear();
    if (track_) s.diagnostic_names(names_);
    d_.assign(names_.size(), 0.0), d0_ = d_, maxabs_ = d_, maxdev_ = d_;
  }
  void columns(std::vector<std::string>& c) const override {
    c = {"E_minus_E0", "H1_integrand"};
    if (use_ref_) c.insert(c.end(), {"H1_integrand_ref", "H1_difference_integrand"});
  }

  void start(const State& s0) override {
    E0_ = system_->energy(s0);
    t0_ = tprev_ = s0.t;
    intE_ = intQ_ = intRef_ = intDiff_ = 0.0;
    fE_ = 0.0;
    fQ_ = h1(s0);
    if (use_ref_) {
      ref_ = s0;
      fRef_ = fQ_;
      fDiff_ = 0.0;
    }
    if (track_) {
      system_->diagnostics(s0, d0_.data());
      for (std::size_t k = 0; k < d0_.size(); ++k) maxabs_[k] = std::abs(d0_[k]), maxdev_[k] = 0.0;
    }
    last_ = s0;
  }

  // E once per step, computed by the Simulation and shared (core/observer.hpp).
  bool needs_energy() const override { return true; }
  void step(const State& s, const StepValues& v) override {
    const double dt = s.t - tprev_;
    const double e = v.energy - E0_;
    const double q = h1(s);
    intE_ += 0.5 * dt * (fE_ * fE_ + e * e);  // trapezoid (A9)
    intQ_ += 0.5 * dt * (fQ_ + q);
    fE_ = e, fQ_ = q;
    if (use_ref_) {
      State next;
      system_->exact_solution(ref_, s.t, next);  // advance the reference on the same grid
      ref_ = next;
      const double r = h1(ref_), df = diff(s, ref_);
      intRef_ += 0.5 * dt * (fRef_ + r);
      intDiff_ += 0.5 * dt * (fDiff_ + df);
      fRef_ = r, fDiff_ = df;
    }
    if (track_) {
      system_->diagnostics(s, d_.data());
      for (std::size_t k = 0; k < d_.size(); ++k) {
        running_max(maxabs_[k], std::abs(d_[k]));
        running_max(maxdev_[k], std::abs(d_[k] - d0_[k]));
      }
    }
    tprev_ = s.t;
    last_ = s;
  }

  // At the start or right after step() on the same state: ΔE and H¹ as start() or step() computed them.
  void observe(const State& s, const StepValues&, double* out) override {
    out[0] = fE_;
    out[1] = fQ_;
    if (use_ref_) out[2] = s.t == tprev_ ? fRef_ : NAN, out[3] = s.t == tprev_ ? fDiff_ : NAN;
  }

  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    const double T = tprev_ - t0_;
    out.emplace_back("E_error_38", std::sqrt(intE_) / (std::abs(E0_) * std::sqrt(std::abs(T))));
    out.emplace_back("H1_norm2", intQ_);
    if (use_ref_) {
      out.emplace_back("H1_norm2_ref", intRef_);
      out.emplace_back("q_error_37", std::sqrt(std::abs(intQ_ - intRef_)) / std::sqrt(intRef_));
      out.emplace_back("true_H1_error", std::sqrt(intDiff_) / std::sqrt(intRef_));
      out.emplace_back("endpoint_error", std::sqrt(diff(last_, ref_)));
    }
    for (std::size_t k = 0; k < names_.size(); ++k) {
      out.emplace_back("max_abs_" + names_[k], maxabs_[k]);
      out.emplace_back("max_dev_" + names_[k], maxdev_[k]);
    }
  }

 private:
  // Σ_i |x_i|² + |v_i|² + |θ_i|² + |Ω_i|²  (35), (36); ‖log R‖²_F/2 = |θ|².
  double h1(const State& s) const {
    double f = 0;
    Vec3 x, v, W;
    Eigen::Quaterniond q;
    for (int i = 0; i < model_->bodies(); ++i) {
      read_body(*model_, s, i, x, q, v, W);
      const double th = so3::angle(q.normalized());
      f += x.squaredNorm() + v.squaredNorm() + th * th + W.squaredNorm();
    }
    return f;
  }
  // Σ_i |Δx|² + |Δv|² + |log(R R_refᵀ)|² + |ΔΩ|² (the true difference, sign-free in q).
  double diff(const State& a, const State& b) const {
    double f = 0;
    Vec3 xa, va, Wa, xb, vb, Wb;
    Eigen::Quaterniond qa, qb;
    for (int i = 0; i < model_->bodies(); ++i) {
      read_body(*model_, a, i, xa, qa, va, Wa);
      read_body(*model_, b, i, xb, qb, vb, Wb);
      const double th = so3::angle(Eigen::Quaterniond(qa.normalized() * qb.normalized().conjugate()));
      f += (xa - xb).squaredNorm() + (va - vb).squaredNorm() + th * th + (Wa - Wb).squaredNorm();
    }
    return f;
  }

  bool use_ref_, track_;
  const System* system_ = nullptr;
  const RigidBodyModel* model_ = nullptr;
  double E0_ = 0, t0_ = 0, tprev_ = 0, intE_ = 0, intQ_ = 0, intRef_ = 0, intDiff_ = 0;
  double fE_ = 0, fQ_ = 0, fRef_ = 0, fDiff_ = 0;
  State ref_, last_;
  std::vector<std::string> names_;
  std::vector<double> d_, d0_, maxabs_, maxdev_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rrp_error_measures";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "Error measures (35)-(38) of seed 003 (trapezoid), q-error against the exact solution, and max |diagnostic| over every step";
  d.seed = "003 (Baker & Gonzalez), eqs. (35)-(38); spec 003 §5";
  d.params = {{"reference", ParamType::Boolean, false, "compare with the system's exact solution on the same grid (q-error (37), true H1 error)"},
              {"track_diagnostics", ParamType::Boolean, true, "max |d| and max |d - d0| of every system diagnostic over every step"}};
  d.make_observer = [](const Parameters& p) { return std::make_unique<RrpErrorMeasures>(p); };
  d.needs = [](const Parameters& p, const PluginFactory&) {
    return p.boolean("reference") ? Needs{"RigidBodyModel", "ExactSolution"} : Needs{"RigidBodyModel"};
  };
  d.examples = {{"defaults", nlohmann::json::object()}, {"reference", {{"reference", true}}}};
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
