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
    fields_ = {"t", "guard"};
    for (const auto& n : layout_.q) fields_.push_back(n);
    for (const auto& n : layout_.v) fields_.push_back("pre_" + n);
    for (const auto& n : layout_.v) fields_.push_back("post_" + n);
    fields_.insert(fields_.end(), {"energy_pre", "energy_post"});
    if (guarded_) fields_.insert(fields_.end(), {"rate_pre", "rate_post"});
    fields_.insert(fields_.end(), diag_names_.begin(), diag_names_.end());
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
    std::vector<double> v = {pre.t, double(sigma)};  // in the order of fields_
    v.insert(v.end(), pre.q.data(), pre.q.data() + pre.q.size());
    v.insert(v.end(), pre.v.data(), pre.v.data() + pre.v.size());
    v.insert(v.end(), post.v.data(), post.v.data() + post.v.size());
    v.insert(v.end(), {e_pre, e_post});
    if (guarded_) v.insert(v.end(), {guarded_->guard_rate(sigma, pre), guarded_->guard_rate(sigma, post)});  // dh·q̇∓
    if (!diag_names_.empty()) {
      system_->diagnostics(pre, diag_values_.data());
      v.insert(v.end(), diag_values_.begin(), diag_values_.end());
    }
    const std::string p = "impact_" + std::to_string(count_) + "_";
    Entry e;
    for (std::size_t i = 0; i < fields_.size(); ++i) e.emplace_back(p + fields_[i], v[i]);
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
  void run_dependent_summaries(std::vector<std::string>& patterns) const override {
    if (max_ > 0)
      for (const auto& f : fields_) patterns.push_back("impact_<k>_" + f);
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
  std::vector<std::string> fields_;  // of each impact's entry: impact_<k>_<field>
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
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
