// Elastic nonholonomic impact (seed 004, Clark & Bloch, Prop IV.1 / Def IV.3; spec 004 §2(b)):
// the nonholonomic Weierstrass–Erdmann corner conditions p⁺ − p⁻ = Aᵀλ + α dhᵀ, H⁺ = H⁻, A q̇⁺ = 0
// (eqs. 14–17), whose nontrivial solution is
//   α = −2 (dh q̇⁻)/(dh u),  λ = −α a_low A Minv dhᵀ,  q̇⁺ = q̇⁻ + α u,  u = pi Minv dhᵀ.
// Generic over any ConstrainedLagrangian + Guarded system (written once from M, A and dh).
#include <dalembert_plugins/impact_laws.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class ElasticNonholonomicImpact final : public LagrangianImpactMap {
 public:
  explicit ElasticNonholonomicImpact(ImpactHandling h) : LagrangianImpactMap("elastic_nonholonomic", std::move(h)) {}
  void apply(State& s, int sigma) override {
    geometry(s, sigma).elastic(s.v);  // q̇⁺ = q̇⁻ − 2 (dh q̇⁻)/(dh u) u  (spec 004 §2(b))
  }
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "elastic_nonholonomic";
  d.kind = PluginKind::Impact;
  d.version = "1.0.0";
  d.summary = "Elastic nonholonomic impact: qdot+ = qdot- - 2 (dh qdot-)/(dh u) u, u = pi M^-1 dh^T (energy-preserving g-reflection in Delta)";
  d.seed = "004 (Clark & Bloch, Prop IV.1, Def IV.3; spec 004 Sec 2(b))";
  d.params = impact_handling_params();
  d.make_impact = [](const Parameters& p) { return std::make_unique<ElasticNonholonomicImpact>(impact_handling_from(p)); };
  d.needs = fixed_needs({ConstrainedLagrangian::model_name, Guarded::model_name});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
