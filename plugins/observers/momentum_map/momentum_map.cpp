// The nonholonomic momentum map of a horizontal symmetry (seed 001 §4, spec 001 §3.5 and claim 11):
// J = ⟨M(q) v, ζ⟩ for a constant coordinate generator ζ (e.g. ζ = ∂ψ on the snakeboard, where
// J = I(ψ̇ + θ̇) is the rotor momentum, dJ/dt = τ_ψ). Columns: `momentum_map` at the node velocity
// and `momentum_map_half` at the half-step velocity v_{k+1/2} when the integrator publishes it
// (`vhalf_<name>` quantities, GNI), else NaN. Summary: max |J_k − J_0| over every step.
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>
#include <limits>

namespace {
using namespace dalembert;

class MomentumMap final : public Observer {
 public:
  explicit MomentumMap(std::vector<double> generator, std::string where) : zeta_(std::move(generator)), where_(std::move(where)) {}

  void bind(const System& s, const Integrator& integ) override {
    system_ = &s;
    integ_ = &integ;
    const Layout lay = s.layout();
    const int n = static_cast<int>(lay.v.size());
    if (static_cast<int>(zeta_.size()) != n)
      throw InputError(where_, "generator has " + std::to_string(zeta_.size()) + " components, but system '" + s.name() +
                                   "' has " + std::to_string(n) + " velocities");
    cl_ = dynamic_cast<const ConstrainedLagrangian*>(&s);
    lg_ = dynamic_cast<const LieGroupModel*>(&s);
    if (!cl_ && !lg_)
      throw Error("observer 'momentum_map' needs a mass matrix: system '" + s.name() +
                  "' provides neither ConstrainedLagrangian nor LieGroupModel");
    M_.resize(n, n);
    z_ = Eigen::Map<const Vec>(zeta_.data(), n);
    w_.resize(n);
    std::vector<std::string> names;
    integ.quantity_names(names);
    half_index_.assign(n, -1);
    has_half_ = true;
    for (int i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < names.size(); ++j)
        if (names[j] == "vhalf_" + lay.v[i]) half_index_[i] = static_cast<int>(j);
      has_half_ = has_half_ && half_index_[i] >= 0;
    }
    quantities_.assign(names.size(), 0.0);
  }
  void columns(std::vector<std::string>& c) const override { c = {"momentum_map", "momentum_map_half"}; }
  void start(const State& s0) override {
    j0_ = current_ = value(s0.q, s0.v);
    max_change_ = 0.0;
    stepped_ = false;
  }
  void step(const State& s, const StepValues&) override {
    stepped_ = true;
    current_ = value(s.q, s.v);
    running_max(max_change_, std::abs(current_ - j0_));
  }
  // At the start or right after step() on the same state: J as start() or step() computed it.
  void observe(const State& s, const StepValues&, double* out) override {
    out[0] = current_;
    out[1] = std::numeric_limits<double>::quiet_NaN();
    if (has_half_ && stepped_) {
      integ_->discrete_quantities(quantities_.data());
      for (int i = 0; i < w_.size(); ++i) w_[i] = quantities_[half_index_[i]];
      out[1] = value(s.q, w_);
    }
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("max_abs_momentum_map_change", max_change_);
  }

 private:
  double value(const Vec& q, const Vec& v) {
    if (cl_) cl_->mass(q, M_);
    else lie::coordinate_mass(*lg_, q, M_);
    return z_.dot(M_ * v);
  }
  std::vector<double> zeta_;
  std::string where_;
  const System* system_ = nullptr;
  const Integrator* integ_ = nullptr;
  const ConstrainedLagrangian* cl_ = nullptr;
  const LieGroupModel* lg_ = nullptr;
  Mat M_;
  Vec z_, w_;
  std::vector<int> half_index_;
  std::vector<double> quantities_;
  bool has_half_ = false, stepped_ = false;
  double j0_ = 0.0, max_change_ = 0.0;
  double current_ = 0.0;  // J at the last state start() or step() saw
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "momentum_map";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "Momentum map <M v, zeta> of a horizontal symmetry, at nodes and (GNI) half steps";
  d.seed = "001 (claim 11 of spec 001)";
  d.params = {{"generator", ParamType::Json, nullptr,
               "coordinate components of the symmetry generator zeta, one per velocity (e.g. [1,0,0,0,0] = d/dpsi)"}};
  d.make_observer = [](const Parameters& p) {
    const auto& g = p.json("generator");
    if (!g.is_array()) throw InputError(p.where("generator"), "expected an array of numbers");
    std::vector<double> z;
    for (const auto& x : g) {
      if (!x.is_number()) throw InputError(p.where("generator"), "expected an array of numbers");
      z.push_back(x.get<double>());
    }
    return std::make_unique<MomentumMap>(z, p.where("generator"));
  };
  d.needs = fixed_needs({"ConstrainedLagrangian or LieGroupModel"});  // a mass matrix
  // The generator has one component per velocity: each example binds to the systems of that size.
  d.examples = {{"d/dq1 of 3", {{"generator", {1, 0, 0}}}}, {"d/dpsi of 5 (snakeboard)", {{"generator", {1, 0, 0, 0, 0}}}}};
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
