// The exact flow as an integrator: step(state, h) = the system's exact solution at t + h
// (System::exact_solution), evaluated from the segment's start state, not composed step by step.
// The segment starts at start(state) (the runner calls it at t0 and after every impact) or at any
// state this integrator did not itself produce; while the runner hands back the state of the
// previous step unchanged, step k evaluates the closed form once from the segment start at
// t − t_start, so the round-off does not accumulate over the steps (the penny's contact path stays
// on its circle to ~1e-16 after 30 000 steps, where 30 000 composed steps drift by ~1e-12).
// With a hybrid system's exact event locator it reproduces impact sequences to round-off (seed
// 004's penny; spec 004 §3). Refuses systems without an exact solution.
#include <dalembert/plugin/export.hpp>
#include <dalembert/plugin/needs.hpp>
#include <algorithm>
#include <cmath>
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
    anchor_.q.resize(nq(s));
    anchor_.v.resize(nv(s));
    last_.q.resize(nq(s));
    last_.v.resize(nv(s));
    mark_.q.resize(nq(s));
    mark_.v.resize(nv(s));
    anchored_ = false;
  }
  // A new segment, unless `s` is the state this integrator produced last (the runner restarts the
  // integrator before its fractional trial steps from the current state: same trajectory).
  void start(const State& s) override {
    if (produced(s))
      copy(s, mark_);  // repeated trials from this state keep the segment too
    else
      anchor(s);
  }
  void step(State& s, double h) override {
    if (!produced(s)) anchor(s);
    // The anchor's time and the runner's clock may differ by round-off (the runner sets t = t0 + k h):
    // the target is the runner's clock, the offset from the anchor is taken in the anchor's frame.
    const double target = s.t + h;
    system_->exact_solution(anchor_, target, next_);
    if (!next_.q.allFinite() || !next_.v.allFinite()) throw StepFailure("the exact solution is not finite here", 0.0);
    s.q = next_.q;
    s.v = next_.v;
    s.t = target;
    copy(s, last_);
  }
  // Exact: any order the audit can measure; it is symmetric and explicit.
  Traits traits() const override { return {std::numeric_limits<int>::max() / 2, true, true, {"everything the flow preserves"}}; }

 private:
  // `s` lies on the current segment: it is the last state produced (or the state the last start()
  // kept), bit for bit in q and v, at the same time up to the clock's round-off.
  static bool same(const State& s, const State& r) {
    return s.q.size() == r.q.size() && s.v.size() == r.v.size() && s.q == r.q && s.v == r.v &&
           std::abs(s.t - r.t) <= 1e-9 * std::max(1.0, std::abs(s.t));
  }
  bool produced(const State& s) const { return anchored_ && (same(s, last_) || same(s, mark_)); }
  static void copy(const State& s, State& to) {
    to.t = s.t;
    to.q = s.q;  // sized in bind(): no allocation
    to.v = s.v;
  }
  void anchor(const State& s) {
    copy(s, anchor_);
    copy(s, last_);
    copy(s, mark_);
    anchored_ = true;
  }
  const System* system_ = nullptr;
  State next_, anchor_, last_, mark_;
  bool anchored_ = false;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "exact_flow";
  d.kind = PluginKind::Integrator;
  d.version = "1.2.0";  // 1.2: treats moving constraints (issue 30)
  d.summary = "The system's exact solution as an integrator, evaluated from the segment's start (reference runs, exact impact sequences)";
  d.make_integrator = [](const Parameters&, const PluginFactory&) { return std::make_unique<ExactFlow>(); };
  // The exact solution keeps g = 0 and A v + b(t, q) = 0 (issue 30)
  d.needs = fixed_needs({"ExactSolution", treats("HolonomicConstraints"), treats("AffineConstraints")});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
