// Every named discrete quantity the integrator publishes after a step (multipliers, Newton
// iterations, discrete energies), as columns. NaN at the initial state, before any step.
// "exclude" drops named quantities, e.g. one another observer already writes under that name
// (constraint_residual writes discrete_constraint_residual): a CSV never has two columns of one name.
#include <algorithm>
#include <dalembert/plugin/export.hpp>
#include <limits>

namespace {
using namespace dalembert;

class DiscreteQuantities final : public Observer {
 public:
  explicit DiscreteQuantities(std::vector<std::string> exclude) : exclude_(std::move(exclude)) {}
  void bind(const System&, const Integrator& integ) override {
    integ_ = &integ;
    std::vector<std::string> all;
    integ.quantity_names(all);
    values_.assign(all.size(), 0.0);
    names_.clear();
    kept_.clear();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (std::find(exclude_.begin(), exclude_.end(), all[i]) == exclude_.end()) names_.push_back(all[i]), kept_.push_back(i);
  }
  void columns(std::vector<std::string>& c) const override { c = names_; }
  void start(const State&) override { stepped_ = false; }
  void step(const State&, const StepValues&) override { stepped_ = true; }
  void observe(const State&, const StepValues&, double* out) override {
    if (!stepped_) return std::fill(out, out + names_.size(), std::numeric_limits<double>::quiet_NaN());
    integ_->discrete_quantities(values_.data());
    for (std::size_t j = 0; j < kept_.size(); ++j) out[j] = values_[kept_[j]];
  }

 private:
  std::vector<std::string> exclude_;
  const Integrator* integ_ = nullptr;
  std::vector<std::string> names_;
  std::vector<std::size_t> kept_;  // index of each column among the published quantities
  std::vector<double> values_;     // every published quantity of the last step
  bool stepped_ = false;
};

std::vector<std::string> excluded_names(const Parameters& p) {
  const auto& e = p.json("exclude");
  std::vector<std::string> out;
  if (e.is_null()) return out;
  if (!e.is_array()) throw InputError(p.where("exclude"), "expected an array of quantity names");
  for (const auto& x : e) {
    if (!x.is_string()) throw InputError(p.where("exclude"), "expected an array of quantity names");
    out.push_back(x.get<std::string>());
  }
  return out;
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "discrete_quantities";
  d.kind = PluginKind::Observer;
  d.version = "1.1.0";
  d.summary = "The integrator's published discrete quantities (multipliers, discrete energies, ...)";
  d.params = {{"exclude", ParamType::Json, nullptr,
               "names of published quantities not to record (e.g. one another observer already writes)"}};
  d.make_observer = [](const Parameters& p) { return std::make_unique<DiscreteQuantities>(excluded_names(p)); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
