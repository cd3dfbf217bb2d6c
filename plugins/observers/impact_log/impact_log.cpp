// Impact log (seed 004, spec 004 §4 "reference values"): every impact's time, guard, configuration,
// pre/post velocities, pre/post energies and the normal rates dh·q̇∓ (and, optionally, the system's
// diagnostics at the impact, e.g. the penny's edge points).
// Columns at each recorded step: the number of impacts so far and the last impact's time, guard and
// post-impact energy. Summaries: impact_count and, for the first `max_in_summary` impacts,
// impact_<k>_<field> (k from 1), e.g. impact_1_t, impact_1_guard, impact_1_energy_post,
// impact_1_post_thetadot, impact_1_front_x.
#include <array>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class ImpactLog final : public Observer {
 public:
  ImpactLog(long max_in_summary, bool diagnostics) : max_(max_in_summary), diag_(diagnostics) {}
  void bind(const System& s, const Integrator&) override {
    system_ = &s;
    guarded_ = dynamic_cast<const Guarded*>(&s);
    layout_ = s.layout();
    diag_names_.clear();
    if (diag_) s.diagnostic_names(diag_names_);
    diag_values_.resize(diag_names_.size());
  }
  void columns(std::vector<std::string>& c) const override {
    c = {"impacts", "last_impact_t", "last_impact_guard", "last_impact_energy_post"};
  }
  void start(const State&) override {
    log_.clear();
    count_ = 0;
    last_ = {0.0, -1.0, 0.0};
  }
  void impact(const State& pre, const State& post, int sigma) override {
    ++count_;
    const double e_pre = system_->energy(pre), e_post = system_->energy(post);
    last_ = {pre.t, double(sigma), e_post};
    if (static_cast<long>(log_.size()) >= max_) return;
    Entry e;
    const std::string p = "impact_" + std::to_string(count_) + "_";
    e.emplace_back(p + "t", pre.t);
    e.emplace_back(p + "guard", sigma);
    for (Eigen::Index i = 0; i < pre.q.size(); ++i) e.emplace_back(p + layout_.q[i], pre.q[i]);
    for (Eigen::Index i = 0; i < pre.v.size(); ++i) e.emplace_back(p + "pre_" + layout_.v[i], pre.v[i]);
    for (Eigen::Index i = 0; i < post.v.size(); ++i) e.emplace_back(p + "post_" + layout_.v[i], post.v[i]);
    e.emplace_back(p + "energy_pre", e_pre);
    e.emplace_back(p + "energy_post", e_post);
    if (guarded_) {
      e.emplace_back(p + "rate_pre", guarded_->guard_rate(sigma, pre));    // dh·q̇⁻
      e.emplace_back(p + "rate_post", guarded_->guard_rate(sigma, post));  // dh·q̇⁺
    }
    if (diag_ && !diag_names_.empty()) {
      system_->diagnostics(pre, diag_values_.data());
      for (std::size_t i = 0; i < diag_names_.size(); ++i) e.emplace_back(p + diag_names_[i], diag_values_[i]);
    }
    log_.push_back(std::move(e));
  }
  void observe(const State&, const StepValues&, double* out) override {
    out[0] = double(count_);
    out[1] = last_[0];
    out[2] = last_[1];
    out[3] = last_[2];
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("impact_count", double(count_));
    for (const auto& e : log_) out.insert(out.end(), e.begin(), e.end());
  }

 private:
  using Entry = std::vector<std::pair<std::string, double>>;
  long max_;
  bool diag_;
  const System* system_ = nullptr;
  const Guarded* guarded_ = nullptr;
  Layout layout_;
  std::vector<std::string> diag_names_;
  std::vector<double> diag_values_;
  std::vector<Entry> log_;
  long count_ = 0;
  std::array<double, 3> last_{0.0, -1.0, 0.0};
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "impact_log";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "Every impact: time, guard, q, pre/post velocities and energies, dh.qdot -/+ (summaries impact_<k>_*); columns: count and last impact";
  d.seed = "004 (Clark & Bloch; spec 004 Sec 4)";
  d.params = {{"max_in_summary", ParamType::Integer, 100, "impacts written to the summary (the first ones; at most 10^4, each adds ~20 entries to the manifest)", 0, 1e4},
              {"diagnostics", ParamType::Boolean, true, "also log the system's diagnostics at each impact (e.g. edge points)"}};
  d.make_observer = [](const Parameters& p) {
    return std::make_unique<ImpactLog>(p.integer("max_in_summary"), p.boolean("diagnostics"));
  };
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
