// The trajectory itself: every component of q and v, named by the system's layout, then the value
// of each input the study gave the system (System::given_inputs), named by the input.
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class Trajectory final : public Observer {
 public:
  void bind(const System& s, const Integrator&) override {
    layout_ = s.layout();
    inputs_ = &s.given_inputs();
  }
  void columns(std::vector<std::string>& c) const override {
    c = layout_.q;
    c.insert(c.end(), layout_.v.begin(), layout_.v.end());
    for (const auto& u : *inputs_) c.push_back(u.name);
  }
  void observe(const State& s, const StepValues&, double* out) override {
    for (Eigen::Index i = 0; i < s.q.size(); ++i) out[i] = s.q[i];
    for (Eigen::Index i = 0; i < s.v.size(); ++i) out[s.q.size() + i] = s.v[i];
    double* u = out + s.q.size() + s.v.size();
    for (const auto& in : *inputs_) *u++ = in.signal(s.t);
  }

 private:
  Layout layout_;
  static inline const std::vector<System::GivenInput> none_;
  const std::vector<System::GivenInput>* inputs_ = &none_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "trajectory";
  d.kind = PluginKind::Observer;
  d.version = "1.1.0";
  d.summary = "Every component of q and v, with the system's names";
  d.make_observer = [](const Parameters&) { return std::make_unique<Trajectory>(); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
