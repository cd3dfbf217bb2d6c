// The exact flow as an integrator: step(state, h) = the system's exact solution from the state
// at t + h (System::exact_solution). Any step size, no error beyond the closed form's round-off;
// with a hybrid system's exact event locator it reproduces impact sequences to round-off
// (seed 004's penny; spec 004 §3). Refuses systems without an exact solution.
#include <dalembert/plugin/export.hpp>
#include <limits>

namespace {
using namespace dalembert;

class ExactFlow final : public Integrator {
 public:
  void bind(const System& s) override {
    if (!s.has_exact_solution())
      throw Error("integrator 'exact_flow' needs a system with an exact solution; system '" + s.name() + "' has none");
    system_ = &s;
    next_.q.resize(nq(s));
    next_.v.resize(nv(s));
  }
  void step(State& s, double h) override {
    system_->exact_solution(s, s.t + h, next_);
    if (!next_.q.allFinite() || !next_.v.allFinite()) throw StepFailure("the exact solution is not finite here", 0.0);
    s.q = next_.q;
    s.v = next_.v;
    s.t += h;
  }
  // Exact: any order the audit can measure; it is symmetric and explicit.
  Traits traits() const override { return {std::numeric_limits<int>::max() / 2, true, true, {"everything the flow preserves"}}; }

 private:
  const System* system_ = nullptr;
  State next_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "exact_flow";
  d.kind = PluginKind::Integrator;
  d.version = "1.0.0";
  d.summary = "The system's exact solution as an integrator (reference runs, exact impact sequences)";
  d.make_integrator = [](const Parameters&, const PluginFactory&) { return std::make_unique<ExactFlow>(); };
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
