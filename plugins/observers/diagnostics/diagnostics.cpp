// The system's named diagnostics (invariants, momenta, partial energies) as columns.
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class Diagnostics final : public Observer {
 public:
  void bind(const System& s, const Integrator&) override {
    system_ = &s;
    names_.clear();
    s.diagnostic_names(names_);
  }
  void columns(std::vector<std::string>& c) const override { c = names_; }
  void observe(const State& s, double* out) override { system_->diagnostics(s, out); }

 private:
  const System* system_ = nullptr;
  std::vector<std::string> names_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "diagnostics";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "The system's named diagnostics (invariants, momenta, partial energies)";
  d.make_observer = [](const Parameters&) { return std::make_unique<Diagnostics>(); };
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
