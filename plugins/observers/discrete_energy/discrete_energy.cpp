// The discrete energy H_k = H|D*(q_k, π_k) of a discrete nonholonomic flow (spec 002 §3.1, A5;
// what the paper's Figs 2, 5, 6 plot), read from the integrator's published quantity
// "discrete_energy" (mla, dla, exact_discrete), including at the initial state. H_0 is the
// integrator's "initial_discrete_energy" when it publishes one (two-step data (q_0, q_1): H_0 =
// H|D*(q_0, π^−(q_0,q_1)) needs h: mla/dla publish it at t_0 when the runner tells them h, else after
// the first step), else the value at t_0. When the integrator says its run starts from two-step data
// ("two_step_initial_data" = 1), the state's velocity at t_0 is not initial data: no E0 comparison
// (max_abs_H_minus_E0) is made from it.
#include <cmath>
#include <dalembert/plugin/export.hpp>
#include <limits>

namespace {
using namespace dalembert;

class DiscreteEnergy final : public Observer {
 public:
  void bind(const System& sys, const Integrator& integ) override {
    sys_ = &sys;
    integ_ = &integ;
    std::vector<std::string> names;
    integ.quantity_names(names);
    iH_ = i0_ = i2_ = -1;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "discrete_energy") iH_ = static_cast<int>(i);
      if (names[i] == "initial_discrete_energy") i0_ = static_cast<int>(i);
      if (names[i] == "two_step_initial_data") i2_ = static_cast<int>(i);
    }
    if (iH_ < 0)
      throw Error("observer 'discrete_energy' needs an integrator that publishes \"discrete_energy\"; '" +
                  integ.name() + "' does not");
    vals_.assign(names.size(), 0.0);
  }
  void columns(std::vector<std::string>& c) const override { c = {"H_discrete", "H_discrete_minus_H0"}; }
  void start(const State& s0) override {
    integ_->discrete_quantities(vals_.data());
    dummy_v_ = i2_ >= 0 && vals_[i2_] == 1.0;
    E0_ = dummy_v_ ? std::numeric_limits<double>::quiet_NaN() : sys_->energy(s0);
    H0_ = vals_[iH_];
    lo_ = hi_ = H0_;
    max_dH0_ = max_dE0_ = 0.0;
    if (!std::isfinite(H0_)) lo_ = std::numeric_limits<double>::infinity(), hi_ = -lo_;
    else if (!dummy_v_) max_dE0_ = std::abs(H0_ - E0_);
    first_ = true;
    last_ = H0_;
  }
  void step(const State&, const StepValues&) override {
    integ_->discrete_quantities(vals_.data());
    if (first_ && i0_ >= 0 && std::isfinite(vals_[i0_]) && !std::isfinite(H0_)) {
      H0_ = vals_[i0_];
      lo_ = hi_ = H0_;
      if (!dummy_v_) max_dE0_ = std::abs(H0_ - E0_);
    }
    first_ = false;
    last_ = vals_[iH_];
    lo_ = std::min(lo_, last_);
    hi_ = std::max(hi_, last_);
    max_dH0_ = std::max(max_dH0_, std::abs(last_ - H0_));
    if (!dummy_v_) max_dE0_ = std::max(max_dE0_, std::abs(last_ - E0_));
  }
  void observe(const State&, const StepValues&, double* out) override {
    integ_->discrete_quantities(vals_.data());
    out[0] = vals_[iH_];
    out[1] = vals_[iH_] - H0_;
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("H0", H0_);
    out.emplace_back("H_final", last_);
    out.emplace_back("H_min", lo_);
    out.emplace_back("H_max", hi_);
    out.emplace_back("H_band", hi_ - lo_);
    out.emplace_back("max_abs_H_minus_H0", max_dH0_);
    if (!dummy_v_) out.emplace_back("max_abs_H_minus_E0", max_dE0_);  // E0 only from a real v0
  }

 private:
  const System* sys_ = nullptr;
  const Integrator* integ_ = nullptr;
  int iH_ = -1, i0_ = -1, i2_ = -1;
  bool dummy_v_ = false;  // the run starts from two-step data: s0.v is not initial data
  std::vector<double> vals_;
  double E0_ = 0, H0_ = 0, lo_ = 0, hi_ = 0, max_dH0_ = 0, max_dE0_ = 0, last_ = 0;
  bool first_ = true;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "discrete_energy";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "Discrete energy H|D*(q_k, pi_k) of a discrete nonholonomic flow and its band (spec 002 §3.1)";
  d.seed = "002 (Figs 2, 5, 6)";
  d.make_observer = [](const Parameters&) { return std::make_unique<DiscreteEnergy>(); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
