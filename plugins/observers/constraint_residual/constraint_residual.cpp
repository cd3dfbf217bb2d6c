// Constraint residuals: the continuous |A(q)v|∞ of the system and, when the integrator publishes
// it, the discrete constraint |Φ(q_{k−1}, q_k)|∞ of its last step (spec 000 §2.0, §3.4).
// Summaries: the maxima over every step.
#include <algorithm>
#include <cmath>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

constexpr const char* kDiscrete = "discrete_constraint_residual";

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
  }
  void columns(std::vector<std::string>& c) const override {
    c = {"constraint_residual"};
    if (slot_ >= 0) c.push_back(kDiscrete);
  }
  void start(const State& s0) override {
    max_ = current_ = system_->constraint_residual(s0);
    max_discrete_ = 0.0;
    stepped_ = false;
  }
  void step(const State& s, const StepValues&) override {
    stepped_ = true;
    current_ = system_->constraint_residual(s);
    running_max(max_, current_);
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
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("max_constraint_residual", max_);
    if (slot_ >= 0) out.emplace_back("max_discrete_constraint_residual", max_discrete_);
  }

 private:
  const System* system_ = nullptr;
  const Integrator* integ_ = nullptr;
  int slot_ = -1;
  std::vector<double> values_;
  double max_ = 0.0, max_discrete_ = 0.0;
  double current_ = 0.0;  // the residual at the last state start() or step() saw
  bool stepped_ = false;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "constraint_residual";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "Constraint residual |A(q)v| and the integrator's discrete constraint |Phi|, with their maxima";
  d.make_observer = [](const Parameters&) { return std::make_unique<ConstraintResidual>(); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
