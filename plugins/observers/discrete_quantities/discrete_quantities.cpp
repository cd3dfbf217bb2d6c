// Every named discrete quantity the integrator publishes after a step (multipliers, Newton
// iterations, discrete energies), as columns. NaN at the initial state, before any step.
#include <dalembert/plugin/export.hpp>
#include <limits>

namespace {
using namespace dalembert;

class DiscreteQuantities final : public Observer {
 public:
  void bind(const System&, const Integrator& integ) override {
    integ_ = &integ;
    names_.clear();
    integ.quantity_names(names_);
  }
  void columns(std::vector<std::string>& c) const override { c = names_; }
  void start(const State&) override { stepped_ = false; }
  void step(const State&) override { stepped_ = true; }
  void observe(const State&, double* out) override {
    if (stepped_) integ_->discrete_quantities(out);
    else std::fill(out, out + names_.size(), std::numeric_limits<double>::quiet_NaN());
  }

 private:
  const Integrator* integ_ = nullptr;
  std::vector<std::string> names_;
  bool stepped_ = false;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "discrete_quantities";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "The integrator's published discrete quantities (multipliers, discrete energies, ...)";
  d.make_observer = [](const Parameters&) { return std::make_unique<DiscreteQuantities>(); };
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
