// The trajectory itself: every component of q and v, named by the system's layout.
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class Trajectory final : public Observer {
 public:
  void bind(const System& s, const Integrator&) override { layout_ = s.layout(); }
  void columns(std::vector<std::string>& c) const override {
    c = layout_.q;
    c.insert(c.end(), layout_.v.begin(), layout_.v.end());
  }
  void observe(const State& s, const StepValues&, double* out) override {
    for (Eigen::Index i = 0; i < s.q.size(); ++i) out[i] = s.q[i];
    for (Eigen::Index i = 0; i < s.v.size(); ++i) out[s.q.size() + i] = s.v[i];
  }

 private:
  Layout layout_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "trajectory";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "Every component of q and v, with the system's names";
  d.make_observer = [](const Parameters&) { return std::make_unique<Trajectory>(); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
