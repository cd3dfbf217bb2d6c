// Ensemble sampler: the study's initial state with chosen components perturbed uniformly,
// x_i ← x_i + U(−w_i, w_i). Components are named by the system's layout, e.g.
//   {"plugin": "uniform_perturbation", "params": {"v": {"thetadot": 0.005, "phidot": 0.005}}}
// (seed 004 Fig 5: (θ̇₀, φ̇₀) perturbed within ±0.005).
#include <algorithm>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;
using nlohmann::json;

class UniformPerturbation final : public Sampler {
 public:
  explicit UniformPerturbation(const Parameters& p) : q_(p.json("q")), v_(p.json("v")), where_q_(p.where("q")), where_v_(p.where("v")) {}

  void bind(const System& s) override {
    const Layout lay = s.layout();
    q_slots_ = resolve(q_, lay.q, where_q_);
    v_slots_ = resolve(v_, lay.v, where_v_);
  }
  void sample(RandomStream& rng, const State& base, State& out) override {
    out = base;
    // Components in the order given by the layout, so the draw order is fixed.
    for (const auto& [i, w] : q_slots_) out.q[i] += rng.uniform(-w, w);
    for (const auto& [i, w] : v_slots_) out.v[i] += rng.uniform(-w, w);
  }

 private:
  static std::vector<std::pair<int, double>> resolve(const json& spec, const std::vector<std::string>& names,
                                                     const std::string& where) {
    std::vector<std::pair<int, double>> slots;
    if (spec.is_null()) return slots;
    if (!spec.is_object()) throw InputError(where, "= " + spec.dump() + ": expected an object {component: half-width}");
    for (const auto& [name, w] : spec.items()) {
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        throw InputError(where + "/" + name, "the system has no component '" + name + "'; its components: " + list);
      }
      if (!w.is_number() || w.get<double>() < 0.0)
        throw InputError(where + "/" + name, "= " + w.dump() + ": a half-width is a non-negative number");
      slots.emplace_back(int(it - names.begin()), w.get<double>());
    }
    std::sort(slots.begin(), slots.end());
    return slots;
  }
  json q_, v_;
  std::string where_q_, where_v_;
  std::vector<std::pair<int, double>> q_slots_, v_slots_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "uniform_perturbation";
  d.kind = PluginKind::Sampler;
  d.version = "1.0.0";
  d.summary = "The initial state with named components perturbed uniformly within +-half-width";
  d.params = {{"q", ParamType::Json, json(), "{component: half-width} for configuration components"},
              {"v", ParamType::Json, json(), "{component: half-width} for velocity components"}};
  d.make_sampler = [](const Parameters& p) { return std::make_unique<UniformPerturbation>(p); };
  d.needs = fixed_needs({});
  d.examples = {{"x and its velocity", {{"q", {{"x", 0.01}}}, {"v", {{"xdot", 0.01}}}}}};
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
