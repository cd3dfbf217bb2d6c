// Plastic nonholonomic impact, the paper's definition (seed 004, Def IV.4, eqs. 18 and 20,
// Prop IV.2; spec 004 §2(c) and §6.5): reflect without the constraints, then project onto Δ,
//   q̇⁺ = pi · P_1(q̇⁻),  P_1(q̇) = q̇ − 2 (dh q̇)/(dh Minv dhᵀ) Minv dhᵀ,  pi = I − Minv Aᵀ a_low A.
// It still bounces: dh q̇⁺ = (1 − 2r) dh q̇⁻. If r < ½ the result points out of the admissible set;
// that is reported (an Error, which the runner turns into a RunFailure), never hidden.
#include <cstdio>
#include <dalembert_plugins/impact_laws.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class PlasticNonholonomicImpact final : public LagrangianImpactMap {
 public:
  explicit PlasticNonholonomicImpact(ImpactHandling h) : LagrangianImpactMap("plastic_nonholonomic", std::move(h)) {}
  void apply(State& s, int sigma) override {
    const ImpactGeometry& g = geometry(s, sigma);
    geo().plastic(s.v);  // q̇⁺ = pi P_1(q̇⁻)  (eq. 20, spec 004 §2(c))
    const double out = guarded().guard_rate(sigma, s);
    // spec 004 §2(c): dh q̇⁺ = (1 − 2r) dh q̇⁻, so r < ½ leaves dh q̇⁺ > 0. Decided on r, not on the
    // sign of a near-grazing rate that may be round-off.
    if (g.r() < 0.5 && out > 0.0) {
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "plastic nonholonomic impact on %s at t = %.15g: the post-impact velocity still points out of "
                    "the admissible set, dh.qdot+ = %.3e > 0, because r = (dh u)/(dh M^-1 dh^T) = %.6f < 1/2 "
                    "(spec 004 Sec 2(c)); this law cannot be used here",
                    guarded().guard_name(sigma).c_str(), s.t, out, g.r());
      throw Error(buf);
    }
  }
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "plastic_nonholonomic";
  d.kind = PluginKind::Impact;
  d.version = "1.0.0";
  d.summary = "Plastic nonholonomic impact (paper's Def IV.4): qdot+ = pi P_1(qdot-), elastic reflection without constraints then the g-orthogonal projection onto Delta; flags r < 1/2";
  d.seed = "004 (Clark & Bloch, Def IV.4, eqs. 18, 20; spec 004 Sec 2(c))";
  d.params = impact_handling_params();
  d.make_impact = [](const Parameters& p) { return std::make_unique<PlasticNonholonomicImpact>(impact_handling_from(p)); };
  d.needs = fixed_needs({ConstrainedLagrangian::model_name, Guarded::model_name});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
