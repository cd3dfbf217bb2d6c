// Position error ‖q_k − q^ex(t_k)‖ against the exact trajectory through the initial state
// (spec 002 §2 "Monitored quantities", §6 A4). q^ex is the system's closed form when it has one,
// else the continuous flow integrated alongside by the framework's order-8 GBS scheme
// (<dalembert_plugins/exact_discrete.hpp>, substep ≤ reference_substep). Parameter v0 replaces the
// initial velocity of the exact trajectory (A4 interpretation (a) of Fig 3: v0 = R^{e−}(q0, q1));
// v0_by_integrator gives it per integrator plugin (interpretation (b): each method's own
// v0 = FL⁻¹(π^−(q0, q1)), e.g. {"mla": [...], "dla": [...]}). Parameter column renames the column
// and the summaries (max_<column>, final_<column>), so two interpretations can run side by side.
#include <cmath>
#include <map>
#include <dalembert_plugins/exact_discrete.hpp>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/core/json_input.hpp>

namespace {
using namespace dalembert;

class PositionError final : public Observer {
 public:
  /// An initial velocity and where it was given (its parameter's path).
  struct Given {
    Vec v0;
    std::string where;
  };
  PositionError(Given v0, std::map<std::string, Given> by_integrator, std::string column, bool inf_norm, double substep)
      : given_(std::move(v0)), by_integrator_(std::move(by_integrator)), column_(std::move(column)), inf_(inf_norm),
        substep_(substep) {}
  void bind(const System& sys, const Integrator& integ) override {
    sys_ = &sys;
    const auto it = by_integrator_.find(integ.name());
    const Given& g = it != by_integrator_.end() ? it->second : given_;
    const auto nv = static_cast<Eigen::Index>(sys.layout().v.size());
    if (g.v0.size() != 0 && g.v0.size() != nv)  // known here, before a run starts
      throw InputError(g.where, "has " + std::to_string(g.v0.size()) + " components, but system '" + sys.name() +
                                    "' has " + std::to_string(nv) + " velocities");
    v0_ = g.v0;
    closed_ = sys.has_exact_solution();
    if (!closed_) {
      const auto* m = dynamic_cast<const ConstrainedLagrangian*>(&sys);
      if (!m)
        throw Error("observer 'position_error': system '" + sys.name() +
                    "' has neither an exact solution nor a ConstrainedLagrangian model");
      flow_.bind(*m, 0.0, substep_);
    }
  }
  void columns(std::vector<std::string>& c) const override { c = {column_}; }
  void start(const State& s0) override {
    ref0_ = s0;
    if (v0_.size() != 0) ref0_.v = v0_;  // of the system's size (bind)
    ref_ = ref0_;
    max_ = last_ = 0.0;
  }
  void step(const State& s, const StepValues&) override {
    last_ = error(s);
    running_max(max_, last_);
  }
  void observe(const State& s, const StepValues&, double* out) override { out[0] = s.t == ref0_.t ? 0.0 : last_; }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("max_" + column_, max_);
    out.emplace_back("final_" + column_, last_);
  }

 private:
  double error(const State& s) {
    if (closed_) {
      sys_->exact_solution(ref0_, s.t, ex_);
    } else {
      flow_.flow(ref_.q, ref_.v, s.t - ref_.t, ref_.t);  // from ref_.t: a forced system reads t (issue 30)
      ref_.t = s.t;
      ex_ = ref_;
    }
    return inf_ ? (s.q - ex_.q).lpNorm<Eigen::Infinity>() : (s.q - ex_.q).norm();
  }
  Given given_;
  std::map<std::string, Given> by_integrator_;
  Vec v0_;  // the one bound
  std::string column_;
  bool inf_;
  double substep_;
  const System* sys_ = nullptr;
  bool closed_ = false;
  ForcedFlow flow_;
  State ref0_, ref_, ex_;
  double max_ = 0, last_ = 0;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "position_error";
  d.kind = PluginKind::Observer;
  d.version = "1.0.1";  // 1.0.1: the reference flow of a forced system starts at its time, not at 0
  d.summary = "Position error |q_k - q_exact(t_k)| (closed form, or an order-8 reference flow)";
  d.seed = "002 (Fig 3, spec 002 §6 A4)";
  const double inf = std::numeric_limits<double>::infinity();
  d.params = {{"v0", ParamType::Json, nullptr, "initial velocity of the exact trajectory (default: the run's)"},
              {"v0_by_integrator", ParamType::Json, nullptr,
               "initial velocity of the exact trajectory per integrator plugin name, e.g. {\"mla\": [...]} (over v0)"},
              {"column", ParamType::String, "position_error", "name of the column (summaries max_<column>, final_<column>)"},
              {"norm", ParamType::String, "2", "vector norm of the error", -inf, inf, {"2", "inf"}},
              {"reference_substep", ParamType::Number, 0.05,
               "substep of the reference flow when the system has no closed form", 1e-6, 10.0}};
  d.make_observer = [](const Parameters& p) {
    const auto velocity = [](const JsonCursor& c) {
      if (c.json().is_null()) return PositionError::Given{Vec(), c.where()};
      const std::vector<double> xs = c.numbers();
      return PositionError::Given{Eigen::Map<const Vec>(xs.data(), static_cast<Eigen::Index>(xs.size())), c.where()};
    };
    const PositionError::Given v0 = velocity(json_parameter(p, "v0"));
    const JsonCursor by = json_parameter(p, "v0_by_integrator");
    if (!by.json().is_null() && !by.json().is_object()) by.fail("parameter 'v0_by_integrator' must be an object {integrator: [v0]}");
    std::map<std::string, PositionError::Given> v0_by;
    if (by.json().is_object())
      for (const auto& [name, value] : by.json().items()) v0_by[name] = velocity(by[name]);
    const std::string column = p.string("column");
    if (column.empty()) throw InputError(p.where("column"), "parameter 'column' must not be empty");
    return std::make_unique<PositionError>(v0, v0_by, column, p.string("norm") == "inf", p.number("reference_substep"));
  };
  d.needs = fixed_needs({"ExactSolution or ConstrainedLagrangian"});  // the closed form, else a reference flow
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
