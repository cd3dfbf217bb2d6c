// Impact with a coefficient of restitution e (seed 004, Thm III.1, eqs. 3–6; spec 004 §2(a)).
//  mode "unconstrained" (holonomic / unconstrained systems, §2(a)):
//     P_e(q̇) = q̇ − (1+e) (dh q̇)/(dh Minv dhᵀ) Minv dhᵀ   (e = 1: the variational map, eq. 5;
//     e = 0: the projection onto ker dh). Refuses systems with nonholonomic constraints, which
//     P_e would violate.
//  mode "nonholonomic" (spec 004 §6.5, an extension, not in the paper):
//     q̇⁺ = q̇⁻ − (1+e) (dh q̇⁻)/(dh u) u,  u = pi Minv dhᵀ;  e = 1 is elastic_nonholonomic,
//     dh q̇⁺ = −e dh q̇⁻ and A q̇⁺ = 0.
#include <dalembert_plugins/impact_laws.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class RestitutionImpact final : public LagrangianImpactMap {
 public:
  RestitutionImpact(double e, bool nonholonomic, ImpactHandling h)
      : LagrangianImpactMap("restitution", std::move(h)), e_(e), nonholonomic_(nonholonomic) {}
  void apply(State& s, int sigma) override {
    const ImpactGeometry& g = geometry(s, sigma);
    if (nonholonomic_)
      g.nonholonomic_restitution(s.v, e_);  // spec 004 §6.5
    else
      g.unconstrained(s.v, e_);  // P_e, eqs. 3–6 (spec 004 §2(a))
  }

 protected:
  void check_system(const System& s) override {
    if (!nonholonomic_ && constraints() > 0)
      throw Error("impact law 'restitution' with mode \"unconstrained\" (spec 004 Sec 2(a)) would violate the " +
                  std::to_string(constraints()) + " nonholonomic constraint(s) of system '" + s.name() +
                  "'; use mode \"nonholonomic\", or the laws elastic_nonholonomic / plastic_nonholonomic");
  }

 private:
  double e_;
  bool nonholonomic_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "restitution";
  d.kind = PluginKind::Impact;
  d.version = "1.0.0";
  d.summary = "Impact with restitution e: P_e (unconstrained/holonomic, Thm III.1) or the nonholonomic extension qdot - (1+e)(dh qdot)/(dh u) u";
  d.seed = "004 (Clark & Bloch, Thm III.1, eqs. 3-6; spec 004 Sec 2(a), 6.5)";
  d.params = impact_handling_params();
  d.params.insert(d.params.begin(),
                  {{"e", ParamType::Number, 1.0, "coefficient of restitution (1: elastic, 0: perfectly plastic)", 0.0, 1.0},
                   {"mode", ParamType::String, "unconstrained",
                    "unconstrained: P_e of Sec 2(a) (systems without nonholonomic constraints); nonholonomic: "
                    "qdot - (1+e)(dh qdot)/(dh u) u (spec 004 Sec 6.5 extension)",
                    -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                    {"unconstrained", "nonholonomic"}}});
  d.make_impact = [](const Parameters& p) {
    return std::make_unique<RestitutionImpact>(p.number("e"), p.string("mode") == "nonholonomic", impact_handling_from(p));
  };
  // bind() also refuses mode "unconstrained" on a system with nonholonomic constraints.
  d.needs = fixed_needs({ConstrainedLagrangian::model_name, Guarded::model_name});
  d.examples = {{"unconstrained e 1", {{"mode", "unconstrained"}}}, {"nonholonomic e 0.5", {{"mode", "nonholonomic"}, {"e", 0.5}}}};
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
