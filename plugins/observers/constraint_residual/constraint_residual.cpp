// Constraint residuals: the continuous |A(q)v|∞ of the system and, when the integrator publishes
// it, the discrete constraint |Φ(q_{k−1}, q_k)|∞ of its last step (spec 000 §2.0, §3.4); for a
// system with holonomic constraints g(q) = 0 (issue 28), also |g(q)|∞ (column holonomic_residual:
// at Newton's tolerance for dla/mla, the drift of the index-reduced field for rk2/rk4).
// Summaries: the maxima over every step.
#include <algorithm>
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

constexpr const char* kDiscrete = "discrete_constraint_residual";
constexpr const char* kHolonomic = "holonomic_residual";

class ConstraintResidual final : public Observer {
 public:
  void bind(const System& s, const Integrator& integ) override {
    system_ = &s;
    integ_ = &integ;
    std::vector<std::string> names;
    integ.quantity_names(names);
    const auto it = std::find(names.begin(), names.end(), kDiscrete);
    slot_ = it == names.end() ? -1 : static_cast<int>(it - names.begin());
    values_.assign(names.size(), 0.0);
    const auto* model = dynamic_cast<const ConstrainedLagrangian*>(&s);
    holonomic_ = model && model->holonomic_count() > 0 ? model : nullptr;
  }
  void columns(std::vector<std::string>& c) const override {
    c.clear();
    c.reserve(3);
    c.emplace_back("constraint_residual");
    if (slot_ >= 0) c.emplace_back(kDiscrete);
    if (holonomic_) c.emplace_back(kHolonomic);
  }
  void start(const State& s0) override {
    max_ = current_ = system_->constraint_residual(s0);
    max_discrete_ = 0.0;
    if (holonomic_) max_holonomic_ = holonomic_current_ = holonomic_->holonomic_residual(s0.q);
    stepped_ = false;
  }
  void step(const State& s, const StepValues&) override {
    stepped_ = true;
    current_ = system_->constraint_residual(s);
    running_max(max_, current_);
    if (holonomic_) {
      holonomic_current_ = holonomic_->holonomic_residual(s.q);
      running_max(max_holonomic_, holonomic_current_);
    }
    if (slot_ >= 0) {
      integ_->discrete_quantities(values_.data());
      running_max(max_discrete_, std::abs(values_[slot_]));
    }
  }
  // At the start or right after step() on the same state: the residual step() or start() computed.
  void observe(const State&, const StepValues&, double* out) override {
    out[0] = current_;
    if (slot_ >= 0) {
      integ_->discrete_quantities(values_.data());
      out[1] = stepped_ ? std::abs(values_[slot_]) : 0.0;  // no step yet: Φ is not defined
    }
    if (holonomic_) out[slot_ >= 0 ? 2 : 1] = holonomic_current_;
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("max_constraint_residual", max_);
    if (slot_ >= 0) out.emplace_back("max_discrete_constraint_residual", max_discrete_);
    if (holonomic_) out.emplace_back("max_holonomic_residual", max_holonomic_);
  }

 private:
  const System* system_ = nullptr;
  const Integrator* integ_ = nullptr;
  int slot_ = -1;
  std::vector<double> values_;
  const ConstrainedLagrangian* holonomic_ = nullptr;  // the system, if it has holonomic constraints
  double max_ = 0.0, max_discrete_ = 0.0, max_holonomic_ = 0.0, holonomic_current_ = 0.0;
  double current_ = 0.0;  // the residual at the last state start() or step() saw
  bool stepped_ = false;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "constraint_residual";
  d.kind = PluginKind::Observer;
  d.version = "1.1.0";  // 1.1: holonomic_residual |g(q)| (issue 28)
  d.summary = "Constraint residual |A(q)v|, the integrator's discrete constraint |Phi| and |g(q)| of holonomic constraints, with their maxima";
  d.make_observer = [](const Parameters&) { return std::make_unique<ConstraintResidual>(); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
