// Ensemble sampler: random states on the constraint manifold at a fixed energy (spec 000 §4,
// Fig 3 recipe): q ~ N(0, σ²I), rejected unless V(q) < cap·E; v ~ N(0, I) projected onto D_q
// (Euclidean projection v − Aᵀ(AAᵀ)⁻¹Av, as the recipe says; equal to the M-orthogonal one for
// M = I) and rescaled so that ½vᵀM(q)v = E − V(q). Any ConstrainedLagrangian system.
#include <Eigen/Cholesky>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class ConstrainedFixedEnergy final : public Sampler {
 public:
  explicit ConstrainedFixedEnergy(const Parameters& p)
      : energy_(p.number("energy")), sigma_(p.number("position_sigma")), cap_(p.number("potential_cap")),
        max_tries_(p.integer("max_tries")) {}

  void bind(const System& s) override {
    model_ = &require<ConstrainedLagrangian>(s, "constrained_fixed_energy");
  }
  void sample(RandomStream& rng, const State& base, State& out) override {
    const int n = model_->dof(), r = model_->num_constraints();
    out = base;
    long tries = 0;
    do {
      if (++tries > max_tries_)
        throw Error("constrained_fixed_energy: no position with V(q) < " + std::to_string(cap_) + "*E in " +
                    std::to_string(max_tries_) + " draws; lower position_sigma or raise potential_cap");
      for (int i = 0; i < n; ++i) out.q[i] = sigma_ * rng.normal();
    } while (!(model_->potential(out.q) < cap_ * energy_));
    for (int i = 0; i < n; ++i) out.v[i] = rng.normal();
    if (r > 0) {
      Mat A(r, n);
      model_->constraint_matrix(out.q, A);
      const Mat AAt = A * A.transpose();
      out.v -= A.transpose() * AAt.llt().solve(A * out.v);
    }
    Mat M(n, n);
    model_->mass(out.q, M);
    const double kinetic = 0.5 * out.v.dot(M * out.v);
    out.v *= std::sqrt((energy_ - model_->potential(out.q)) / kinetic);
  }

 private:
  const ConstrainedLagrangian* model_ = nullptr;
  double energy_, sigma_, cap_;
  long max_tries_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "constrained_fixed_energy";
  d.kind = PluginKind::Sampler;
  d.version = "1.0.0";
  d.summary = "Random states on the constraint manifold at a fixed energy (spec 000 Fig 3 recipe)";
  d.seed = "000 (Fig 3; the recipe is the spec's, the paper gives none)";
  d.params = {{"energy", ParamType::Number, nlohmann::json(), "the energy E of every drawn state"},
              {"position_sigma", ParamType::Number, 0.5, "standard deviation of each position component", 0.0},
              {"potential_cap", ParamType::Number, 0.8, "reject positions with V(q) >= cap * E", 0.0, 1.0},
              {"max_tries", ParamType::Integer, 100000, "rejection-sampling limit per state (at most 10^7: a huge one runs for ever)", 1, 1e7}};
  d.make_sampler = [](const Parameters& p) { return std::make_unique<ConstrainedFixedEnergy>(p); };
  d.needs = fixed_needs({ConstrainedLagrangian::model_name});
  d.examples = {{"E = 1", {{"energy", 1.0}}}};
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
