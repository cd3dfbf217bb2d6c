// Energy and the energy drift ΔE = E(q_k, v_k) − E(q_0, v_0), signed (spec 000 §4, §6.7).
// Summaries: the largest |ΔE| over every step (recorded or not) and the final ΔE.
#include <cmath>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class EnergyError final : public Observer {
 public:
  void bind(const System& s, const Integrator&) override { system_ = &s; }
  void columns(std::vector<std::string>& c) const override { c = {"energy", "energy_error"}; }
  void start(const State& s0) override {
    e0_ = system_->energy(s0);
    max_abs_ = 0.0;
    last_ = 0.0;
  }
  // E(q_k, v_k) once per step, computed by the Simulation and shared (core/observer.hpp).
  bool needs_energy() const override { return true; }
  void step(const State&, const StepValues& v) override {
    last_ = v.energy - e0_;
    running_max(max_abs_, std::abs(last_));
  }
  void observe(const State&, const StepValues& v, double* out) override {
    out[0] = v.energy;
    out[1] = out[0] - e0_;
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("initial_energy", e0_);
    out.emplace_back("max_abs_energy_error", max_abs_);
    out.emplace_back("final_energy_error", last_);
  }

 private:
  const System* system_ = nullptr;
  double e0_ = 0.0, max_abs_ = 0.0, last_ = 0.0;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "energy_error";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "Energy E and signed drift E - E0; summaries max |E - E0| and the final drift";
  d.make_observer = [](const Parameters&) { return std::make_unique<EnergyError>(); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
