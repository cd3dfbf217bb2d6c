// Composition of configured integrators with step fractions (seed 000 §3.5.3–3.5.4):
// Ψ_h = Φ^{(s)}_{c_s h} ∘ … ∘ Φ^{(1)}_{c_1 h}, stages applied in the order listed.
// Ψ_h = F^{0,0,1}_{h/2} ∘ F^{0,0,0}_{h/2} (Prop 3.7) and the triple jump (Remark 3.10) are JSON, not code.
#include <algorithm>
#include <cmath>
#include <dalembert/plugin/export.hpp>

namespace {

using namespace dalembert;
using nlohmann::json;

// Triple jump (Yoshida 1990; seed 000 Remark 3.10): γ₁ = 1/(2 − 2^{1/3}), γ₂ = −2^{1/3}/(2 − 2^{1/3}).
const double kCbrt2 = std::cbrt(2.0);
const double kGamma1 = 1.0 / (2.0 - kCbrt2);
const double kGamma2 = -kCbrt2 / (2.0 - kCbrt2);

class Composition final : public Integrator {
 public:
  struct Stage {
    std::unique_ptr<Integrator> method;
    double fraction;
  };
  Composition(std::vector<Stage> stages, Traits traits) : stages_(std::move(stages)), traits_(std::move(traits)) {}

  void bind(const System& s) override {
    names_.clear();
    for (auto& st : stages_) {
      st.method->bind(s);
      std::vector<std::string> n;
      st.method->quantity_names(n);
      for (const auto& x : n)
        if (std::find(names_.begin(), names_.end(), x) == names_.end()) names_.push_back(x);
    }
    // Per stage: where each of its quantities goes in names_.
    slots_.clear();
    stage_values_.clear();
    for (auto& st : stages_) {
      std::vector<std::string> n;
      st.method->quantity_names(n);
      std::vector<int> slot;
      for (const auto& x : n) slot.push_back(int(std::find(names_.begin(), names_.end(), x) - names_.begin()));
      slots_.push_back(slot);
      stage_values_.emplace_back(n.size(), 0.0);
    }
    values_.assign(names_.size(), 0.0);
    saved_.q.resize(nq(s));
    saved_.v.resize(nv(s));
  }
  void start(const State& s) override {
    for (auto& st : stages_) st.method->begin(s);
  }
  // Each stage through its advance() (t + c_i h, finite); a failing stage leaves the state after the
  // stages before it, which this step puts back: on failure a step leaves the state unchanged.
  void step(State& s, double h) override {
    saved_.t = s.t;
    saved_.q = s.q;
    saved_.v = s.v;
    std::fill(values_.begin(), values_.end(), 0.0);
    try {
      for (std::size_t i = 0; i < stages_.size(); ++i) {
        stages_[i].method->advance(s, stages_[i].fraction * h);
        if (!slots_[i].empty()) {
          stages_[i].method->discrete_quantities(stage_values_[i].data());
          for (std::size_t k = 0; k < slots_[i].size(); ++k) {
            double& v = values_[slots_[i][k]];
            if (std::abs(stage_values_[i][k]) >= std::abs(v)) v = stage_values_[i][k];
          }
        }
      }
    } catch (...) {
      s.t = saved_.t;
      s.q = saved_.q;
      s.v = saved_.v;
      throw;
    }
  }
  Traits traits() const override { return traits_; }
  // Each quantity is reported from the stage where it is largest in magnitude (right for residuals).
  void quantity_names(std::vector<std::string>& n) const override { n = names_; }
  void discrete_quantities(double* out) const override { std::copy(values_.begin(), values_.end(), out); }

 private:
  std::vector<Stage> stages_;
  Traits traits_;
  std::vector<std::string> names_;
  std::vector<std::vector<int>> slots_;
  std::vector<std::vector<double>> stage_values_;
  std::vector<double> values_;
  State saved_;
};

// One stage as the parameters give it: which integrator, with which parameters, at which fraction of h.
struct StageSpec {
  std::string integrator;
  json params;
  std::string where;
  double fraction;
};

// The stages of "stages" or "triple_jump", checked (keys, fractions summing to 1).
std::vector<StageSpec> stage_specs(const Parameters& p) {
  const json& stages_json = p.json("stages");
  const json& tj = p.json("triple_jump");
  std::vector<StageSpec> stages;
  auto stage = [&](const json& j, const std::string& where, double fraction) {
    if (!j.is_object() || !j.contains("integrator") || !j.at("integrator").is_string())
      throw InputError(where, "a stage must be an object with \"integrator\": \"<plugin name>\"");
    for (const auto& [k, v] : j.items())
      if (k != "integrator" && k != "params" && k != "fraction")
        throw InputError(where + "/" + k, "unknown key '" + k + "' in a composition stage (integrator, params, fraction)");
    return StageSpec{j.at("integrator").get<std::string>(), j.value("params", json::object()), where, fraction};
  };
  if (!stages_json.is_null() && !tj.is_null())
    throw InputError(p.where("triple_jump"), "give either \"stages\" or \"triple_jump\", not both");
  if (!tj.is_null()) {
    for (double c : {kGamma1, kGamma2, kGamma1}) stages.push_back(stage(tj, p.where("triple_jump"), c));
  } else {
    if (!stages_json.is_array() || stages_json.empty())
      throw InputError(p.where("stages"), "= " + stages_json.dump() + ": must be a non-empty array of stages");
    for (std::size_t i = 0; i < stages_json.size(); ++i) {
      const std::string where = p.where("stages") + "/" + std::to_string(i);
      const json& f = stages_json[i].is_object() && stages_json[i].contains("fraction") ? stages_json[i]["fraction"] : json();
      if (!f.is_number() || !std::isfinite(f.get<double>()) || f.get<double>() == 0.0)
        throw InputError(where + "/fraction", "= " + f.dump() + ": each stage needs a nonzero numeric \"fraction\" of h");
      stages.push_back(stage(stages_json[i], where, f.get<double>()));
    }
  }
  double sum = 0.0;
  for (const auto& s : stages) sum += s.fraction;
  if (std::abs(sum - 1.0) > 1e-12)
    throw InputError(p.where("stages"), "stage fractions sum to " + std::to_string(sum) + ", not 1: the composition would not be consistent");
  return stages;
}

// What the stages need of a system, together; a capability it treats ("treats C", plugin/needs.hpp)
// only if every stage treats it (a system with holonomic constraints: every stage must treat g).
Needs needs(const Parameters& p, const PluginFactory& factory) {
  Needs all;
  std::vector<Needs> per_stage;
  for (const auto& s : stage_specs(p)) per_stage.push_back(factory.integrator_needs(s.integrator, s.params, s.where));
  auto in = [](const Needs& ns, const std::string& n) { return std::find(ns.begin(), ns.end(), n) != ns.end(); };
  for (const auto& stage : per_stage)
    for (const auto& n : stage) {
      if (in(all, n)) continue;
      const bool treated = n.rfind("treats ", 0) == 0;
      if (treated && !std::all_of(per_stage.begin(), per_stage.end(), [&](const Needs& o) { return in(o, n); })) continue;
      all.push_back(n);
    }
  return all;
}

std::unique_ptr<Integrator> make(const Parameters& p, const PluginFactory& factory) {
  const json& tj = p.json("triple_jump");
  std::vector<Composition::Stage> stages;
  for (const auto& s : stage_specs(p))
    stages.push_back({factory.make_integrator(s.integrator, s.params, s.where), s.fraction});

  Traits t;
  t.order = 1 << 20;
  t.explicit_method = true;
  t.preserves = stages.front().method->traits().preserves;
  for (const auto& s : stages) {
    const Traits st = s.method->traits();
    t.order = std::min(t.order, st.order);
    t.explicit_method = t.explicit_method && st.explicit_method;
    std::vector<std::string> keep;  // what every stage preserves, the composition preserves
    for (const auto& x : t.preserves)
      if (std::find(st.preserves.begin(), st.preserves.end(), x) != st.preserves.end()) keep.push_back(x);
    t.preserves = keep;
  }
  if (!tj.is_null()) {
    const Traits base = stages.front().method->traits();
    t.symmetric = base.symmetric;
    if (base.symmetric && base.order % 2 == 0) t.order = base.order + 2;  // Yoshida: symmetric order p → p+2
  }
  if (p.integer("order") > 0) t.order = static_cast<int>(p.integer("order"));
  if (p.boolean("symmetric")) t.symmetric = true;
  return std::make_unique<Composition>(std::move(stages), t);
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "composition";
  d.kind = PluginKind::Integrator;
  d.version = "1.0.0";
  d.summary = "Composes configured integrators with step fractions (adjoint pairs, triple jump)";
  d.seed = "000 (Props 3.6-3.7, Remark 3.10)";
  d.params = {
      {"stages", ParamType::Json, json(), "array of {integrator, params, fraction}, applied in order; fractions sum to 1"},
      {"triple_jump", ParamType::Json, json(), "{integrator, params}: the triple jump gamma1, gamma2, gamma1 of one method"},
      {"order", ParamType::Integer, 0, "declared order (0: minimum stage order; triple jump of a symmetric order-p method: p+2)", 0, 64},
      {"symmetric", ParamType::Boolean, false, "declare the composition symmetric (e.g. a method composed with its adjoint)"},
  };
  d.make_integrator = make;
  d.needs = needs;
  // Psi_h = F^{b,b,1}_{h/2} o F^{b,b,0}_{h/2} (Prop 3.7: symmetric, order 2) and triple jumps (Remark 3.10).
  auto newmark = [](double beta, double alpha) { return json{{"beta", beta}, {"beta_prime", beta}, {"alpha", alpha}}; };
  auto psi = [&](double beta) {
    return json{{"order", 2}, {"symmetric", true},
                {"stages", {{{"integrator", "nonholonomic_newmark"}, {"params", newmark(beta, 0.0)}, {"fraction", 0.5}},
                            {{"integrator", "nonholonomic_newmark"}, {"params", newmark(beta, 1.0)}, {"fraction", 0.5}}}}};
  };
  d.examples = {{"Psi_h beta 0", psi(0.0)},
                {"Psi_h beta 0.1", psi(0.1)},
                {"triple jump of DLA F^{0,0,1/2}",
                 {{"triple_jump", {{"integrator", "nonholonomic_newmark"}, {"params", newmark(0.0, 0.5)}}}}},
                {"triple jump of dla", {{"triple_jump", {{"integrator", "dla"}}}}}};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
