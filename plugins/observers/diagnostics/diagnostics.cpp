// The system's named diagnostics (invariants, momenta, partial energies) as columns; with
// "extrema": true also their extrema over every step of the run as summaries (max_<c>, min_<c>,
// max_abs_<c>, spread_<c> = max − min), e.g. the largest tilt of a rolling disk in a sweep.
#include <algorithm>
#include <cmath>
#include <dalembert/plugin/export.hpp>
#include <limits>

namespace {
using namespace dalembert;

class Diagnostics final : public Observer {
 public:
  explicit Diagnostics(bool extrema) : extrema_(extrema) {}
  void bind(const System& s, const Integrator&) override {
    system_ = &s;
    names_.clear();
    s.diagnostic_names(names_);
    values_.assign(names_.size(), 0.0);
    max_.assign(names_.size(), -std::numeric_limits<double>::infinity());
    min_.assign(names_.size(), std::numeric_limits<double>::infinity());
  }
  void columns(std::vector<std::string>& c) const override { c = names_; }
  void start(const State& s0) override {
    std::fill(max_.begin(), max_.end(), -std::numeric_limits<double>::infinity());
    std::fill(min_.begin(), min_.end(), std::numeric_limits<double>::infinity());
    step(s0, StepValues{});
  }
  void step(const State& s, const StepValues&) override {
    if (!extrema_ || names_.empty()) return;
    system_->diagnostics(s, values_.data());
    for (std::size_t i = 0; i < values_.size(); ++i) {
      max_[i] = std::max(max_[i], values_[i]);
      min_[i] = std::min(min_[i], values_[i]);
    }
  }
  // At the start or right after step() on the same state: the values step() computed, if it did.
  void observe(const State& s, const StepValues&, double* out) override {
    if (extrema_ && !names_.empty())
      std::copy(values_.begin(), values_.end(), out);
    else
      system_->diagnostics(s, out);
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    if (!extrema_) return;
    for (std::size_t i = 0; i < names_.size(); ++i) {
      out.emplace_back("max_" + names_[i], max_[i]);
      out.emplace_back("min_" + names_[i], min_[i]);
      out.emplace_back("max_abs_" + names_[i], std::max(std::abs(max_[i]), std::abs(min_[i])));
      out.emplace_back("spread_" + names_[i], max_[i] - min_[i]);
    }
  }

 private:
  bool extrema_;
  const System* system_ = nullptr;
  std::vector<std::string> names_;
  std::vector<double> values_, max_, min_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "diagnostics";
  d.kind = PluginKind::Observer;
  d.version = "1.1.0";
  d.summary = "The system's named diagnostics (invariants, momenta, partial energies); optionally their extrema";
  d.params = {{"extrema", ParamType::Boolean, false,
               "also report max_<c>, min_<c>, max_abs_<c> and spread_<c> (max - min) over every step as summaries"}};
  d.make_observer = [](const Parameters& p) { return std::make_unique<Diagnostics>(p.boolean("extrema")); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
