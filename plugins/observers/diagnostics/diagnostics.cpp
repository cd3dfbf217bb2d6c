// The system's named diagnostics (invariants, momenta, partial energies) as columns; with
// "extrema": true also their extrema over every step of the run as summaries (max_<c>, min_<c>,
// max_abs_<c>, spread_<c> = max − min), e.g. the largest tilt of a rolling disk in a sweep; with
// "sign_changes": true the time of each one's first change of sign (first_sign_change_<c>, linear
// interpolation between steps; −1 if it keeps its sign), e.g. a rattleback's first spin reversal.
#include <algorithm>
#include <cmath>
#include <dalembert/plugin/export.hpp>
#include <limits>

namespace {
using namespace dalembert;

class Diagnostics final : public Observer {
 public:
  Diagnostics(bool extrema, bool sign_changes) : extrema_(extrema), sign_changes_(sign_changes) {}
  void bind(const System& s, const Integrator&) override {
    system_ = &s;
    names_.clear();
    s.diagnostic_names(names_);
    values_.assign(names_.size(), 0.0);
    max_.assign(names_.size(), -std::numeric_limits<double>::infinity());
    min_.assign(names_.size(), std::numeric_limits<double>::infinity());
    previous_.assign(names_.size(), 0.0);
    first_change_.assign(names_.size(), -1.0);
  }
  void columns(std::vector<std::string>& c) const override { c = names_; }
  void start(const State& s0) override {
    std::fill(max_.begin(), max_.end(), -std::numeric_limits<double>::infinity());
    std::fill(min_.begin(), min_.end(), std::numeric_limits<double>::infinity());
    std::fill(first_change_.begin(), first_change_.end(), -1.0);
    started_ = false;
    step(s0, StepValues{});
  }
  void step(const State& s, const StepValues&) override {
    if (!every_step() || names_.empty()) return;
    system_->diagnostics(s, values_.data());
    for (std::size_t i = 0; i < values_.size(); ++i) {
      max_[i] = std::max(max_[i], values_[i]);
      min_[i] = std::min(min_[i], values_[i]);
      // the first step over which c changes sign: the zero of the chord between the two steps
      if (sign_changes_ && started_ && first_change_[i] < 0.0 && (previous_[i] < 0.0) != (values_[i] < 0.0))
        first_change_[i] = previous_t_ + (s.t - previous_t_) * previous_[i] / (previous_[i] - values_[i]);
    }
    previous_ = values_;
    previous_t_ = s.t;
    started_ = true;
  }
  // At the start or right after step() on the same state: the values step() computed, if it did.
  void observe(const State& s, const StepValues&, double* out) override {
    if (every_step() && !names_.empty())
      std::copy(values_.begin(), values_.end(), out);
    else
      system_->diagnostics(s, out);
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    if (sign_changes_)
      for (std::size_t i = 0; i < names_.size(); ++i) out.emplace_back("first_sign_change_" + names_[i], first_change_[i]);
    if (!extrema_) return;
    for (std::size_t i = 0; i < names_.size(); ++i) {
      out.emplace_back("max_" + names_[i], max_[i]);
      out.emplace_back("min_" + names_[i], min_[i]);
      out.emplace_back("max_abs_" + names_[i], std::max(std::abs(max_[i]), std::abs(min_[i])));
      out.emplace_back("spread_" + names_[i], max_[i] - min_[i]);
    }
  }

 private:
  bool every_step() const { return extrema_ || sign_changes_; }
  bool extrema_, sign_changes_;
  const System* system_ = nullptr;
  std::vector<std::string> names_;
  std::vector<double> values_, max_, min_, previous_, first_change_;
  double previous_t_ = 0.0;
  bool started_ = false;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "diagnostics";
  d.kind = PluginKind::Observer;
  d.version = "1.2.0";
  d.summary = "The system's named diagnostics (invariants, momenta, partial energies); optionally their extrema";
  d.params = {{"extrema", ParamType::Boolean, false,
               "also report max_<c>, min_<c>, max_abs_<c> and spread_<c> (max - min) over every step as summaries"},
              {"sign_changes", ParamType::Boolean, false,
               "also report first_sign_change_<c>: the time of c's first change of sign over the steps (linear "
               "interpolation; -1 if none)"}};
  d.make_observer = [](const Parameters& p) {
    return std::make_unique<Diagnostics>(p.boolean("extrema"), p.boolean("sign_changes"));
  };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
