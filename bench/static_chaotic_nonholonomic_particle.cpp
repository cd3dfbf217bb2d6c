// Plugin 'chaotic_nonholonomic_particle' compiled into the bench executable (see static_plugins.hpp).
#include <dalembert/plugin/export.hpp>
#undef DALEMBERT_PLUGIN
#define DALEMBERT_PLUGIN(describe_fn) \
  namespace dalembert::bench {        \
  PluginDescriptor static_chaotic_nonholonomic_particle() { return ::describe_fn(); } \
  }
#include "../plugins/systems/chaotic_nonholonomic_particle/chaotic_nonholonomic_particle.cpp"

// The same model with its derivatives removed (issue 13): every derivative the compiled schemes
// use — ∇V, ∇²V, (∂A/∂q)[v]v, DA[w], Σλ∂A — comes from automatic differentiation instead of the
// plugin's closed forms. The products A x and Aᵀλ, which are not derivatives, stay in both.
// step/static_ad/... against step/static/... is the cost of AD.
namespace dalembert::bench {
namespace {
struct ChaoticParticleByAD {
  static constexpr int dof = ChaoticParticleModel::dof, constraints = ChaoticParticleModel::constraints;
  ChaoticParticleModel closed_forms;  // only its V and A are used
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return closed_forms.potential(q); }
  void constraint_matrix(const auto& q, auto&& A) const { closed_forms.constraint_matrix(q, A); }
  void apply_constraint(const auto& q, const auto& x, auto&& y) const { closed_forms.apply_constraint(q, x, y); }
  void add_constraint_force(const auto& q, const auto& lambda, auto&& f) const {
    closed_forms.add_constraint_force(q, lambda, f);
  }
};
class ChaoticParticleAD final : public FixedLagrangianSystem<ChaoticParticleByAD> {
 public:
  Layout layout() const override { return ChaoticNonholonomicParticle().layout(); }
};
}  // namespace
std::unique_ptr<System> static_chaotic_particle_by_ad() { return std::make_unique<ChaoticParticleAD>(); }
}  // namespace dalembert::bench
