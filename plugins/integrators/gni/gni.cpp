// GNI, the geometric nonholonomic integrator of Ferraro–Iglesias–Martín de Diego in its explicit
// constant-mass "momentum reflection" form (seed 001 §4, eqs. 14–16; spec 001 §3.2), in
// coordinates q (shape, θ, x, y) with v = q̇. With the M-orthogonal projectors onto D and D^⊥,
//     P(q) = B_D (B_Dᵀ M B_D)⁻¹ B_Dᵀ M,   Q = Id − P          (spec §2.0, basis form; regular)
//   init    v_{1/2}   = v_0 + (h/2) P(q_0) M⁻¹ f_0                      [`paper`, eq. 16]
//                     = v_0 + (h/2) M⁻¹ f_0                              [`rattle_lambda0`]
//                     = v_0 + (h/2) q̈(0)                                 [`exact`, spec §3.2]
//   step    v_{k+1/2} = (Id − 2Q(q_k)) v_{k−1/2} + h P(q_k) M⁻¹ f_k     [typo (a) of spec §6 fixed]
//           q_{k+1}   = q_k + h v_{k+1/2}
//   node    v_{k+1}   = P(q_{k+1}) (v_{k+1/2} + (h/2) M⁻¹ f_{k+1})        [eq. 15, typo (b) fixed]
// The half-step velocity is kept inside the integrator; the State carries the node velocity.
// Signed h: the same recursion; a step of −h right after a step of h retraces that step first.
//
// On SO(3) (issue 29), where no coordinates have a constant mass, the same construction (seed 001
// eqs. (5)–(6)) is applied to the left-invariant discrete Lagrangian L_d(g_k, g_{k+1}) = hℓ(ξ_k),
// g_{k+1} = g_k τ(hξ_k) (τ = Cayley or exp): the group form GNIOnGroup<G> below, for systems
// without shape. Its pre-/post-momenta are p⁺_{k−1,k} = (dτ⁻¹_{−hξ_{k−1}})ᵀ𝕄ξ_{k−1} and
// p⁻_{k,k+1} = (dτ⁻¹_{hξ_k})ᵀ𝕄ξ_k (Kobilarov–Marsden 2011 eq. (13); lie_body_dynamics.hpp), and
//     (5a) P*(p⁻_{k,k+1} − p⁺_{k−1,k}) = hP*f_k,   (5b) Q*(p⁻_{k,k+1} + p⁺_{k−1,k}) = 0
//   ⇔ p⁻_{k,k+1} = (2P* − I) p⁺_{k−1,k} + hP*f_k   (the momentum jump (6)), then ξ_k from p⁻,
//     node   𝕄ξ_{k+1} = P*(p⁺_{k,k+1} + (h/2) f_{k+1})                                  (cf. eq. 15)
//     init   p⁻_{0,1} = 𝕄ξ_0 + (h/2)(P*f_0 − Q* ad*_{ξ_0}𝕄ξ_0)   (the continuous constraint force:
//            the "exact" initialisation of spec §3.2; the paper's eq. (16) leaves an O(h) 2-cycle).
#include <Eigen/Cholesky>
#include <cmath>
#include <limits>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/math/llt_storage.hpp>
#include <dalembert/math/se2.hpp>
#include <dalembert/math/so3_group.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/schemes/lie_body_dynamics.hpp>
#include <dalembert/schemes/open_integrator.hpp>
#include <array>
#include <memory>

namespace {

using namespace dalembert;

enum class Init { Paper, RattleLambda0, Exact };

/// The coordinate form on SE(2) (seed 001 §4.1–4.2), unchanged since issue 13.
class GNIOnSE2 final : public OpenIntegrator {
 public:
  explicit GNIOnSE2(Init init) : init_(init) {}

  void bind(const System& s) override {
    model_ = &require<LieGroupModel>(s, name());
    if (model_->group() != LieGroup::SE2)
      throw Error("integrator '" + name() + "' supports SE(2) systems only; system '" + s.name() + "' is on " +
                  to_string(model_->group()));
    if (!model_->constant_locked_mass() || !lie::coordinate_mass_is_constant(*model_))
      throw Error("integrator '" + name() + "' is the constant-mass GNI (spec 001 §3.2); the coordinate mass matrix of "
                  "system '" + s.name() + "' depends on q");
    nr_ = model_->shape_dim();
    n_ = model_->reduced_dim();
    k_ = nr_ + model_->num_symmetry_directions();
    M_.resize(n_, n_);
    lie::coordinate_mass(*model_, Vec::Zero(n_), M_);
    Minv_ = M_.inverse();
    A_.resize(3, nr_);
    E_.resize(3, k_ - nr_);
    B_.resize(n_, k_);
    MB_.resize(n_, k_);
    BMB_.resize(k_, k_);
    size_llt(llt_, k_);
    for (Vec* v : {&w_, &wnew_, &qnew_, &vnew_, &f_, &tmp_, &tmp2_, &q_mem_, &qddot0_, &q_start_, &v_start_}) v->resize(n_);
    tk_.resize(k_);
    fr_.resize(nr_);
    fg_.resize(3);
    vnames_ = s.layout().v;
    names_.clear();
    quantity_names(names_);
    values_.assign(names_.size(), std::numeric_limits<double>::quiet_NaN());
    initialised_ = false;
  }

  void start(const State& s) override {
    model_->check_state(s);
    initialised_ = false;
    have_qddot0_ = init_ == Init::Exact;
    if (have_qddot0_) {
      lie::constrained_acceleration(*model_, s.t, s.q, s.v, qddot0_);
      t_start_ = s.t;
      q_start_ = s.q;
      v_start_ = s.v;
    }
  }

  void step(State& s, double h) override {
    // the memory belongs to this state unless the caller moved it (the runner resets t to t₀ + k h)
    const bool fresh = !initialised_ || std::abs(s.t - t_mem_) > 1e-9 * (std::abs(h) + std::abs(s.t)) || s.q != q_mem_;
    double constraint_average = 0.0;
    if (!fresh && h == -h_last_) {
      // step(−h) right after step(h) runs the two-step map backwards from (q_{k+1}, q_k): its first
      // step retraces the last interval, q_k = q_{k+1} − h v_{k+1/2}; the following ones reflect
      // as usual (v_{k−1/2} = S(q_k) v_{k+1/2} − h P M⁻¹ f_k), so positions retrace exactly (claim 10).
      wnew_ = w_;
    } else if (fresh) {
      // initial half-step velocity (spec §3.2, "Initialisation variants")
      force(s.t, s.q, s.v);
      switch (init_) {
        case Init::Paper:
          tmp_.noalias() = Minv_ * f_;
          project(s.q, tmp_, tmp2_);
          wnew_ = s.v + 0.5 * h * tmp2_;
          break;
        case Init::RattleLambda0:
          tmp_.noalias() = Minv_ * f_;
          wnew_ = s.v + 0.5 * h * tmp_;
          break;
        case Init::Exact:
          // q̈(0), computed in start() (it allocates); recomputed only for a state start() did not see
          if (!(have_qddot0_ && s.t == t_start_ && s.q == q_start_ && s.v == v_start_))
            lie::constrained_acceleration(*model_, s.t, s.q, s.v, qddot0_);
          wnew_ = s.v + 0.5 * h * qddot0_;
          break;
      }
    } else {
      // momentum reflection: w' = (Id − 2Q)w + hPM⁻¹f = 2Pw − w + hPM⁻¹f
      force(s.t, s.q, s.v);
      tmp2_.noalias() = Minv_ * f_;
      tmp_ = 2.0 * w_ + h * tmp2_;
      project(s.q, tmp_, tmp2_);  // P(2w + hM⁻¹f)
      wnew_ = tmp2_ - w_;
      // Q(q_k)(v_{k−1/2} + v_{k+1/2}) = 0 (claim 9): report its size
      tmp_ = w_ + wnew_;
      project(s.q, tmp_, tmp2_);
      constraint_average = (tmp_ - tmp2_).lpNorm<Eigen::Infinity>();
    }
    qnew_ = s.q + h * wnew_;
    // node velocity v_{k+1} = P(q_{k+1})(v_{k+1/2} + (h/2)M⁻¹f_{k+1})
    force(s.t + h, qnew_, wnew_);
    tmp2_.noalias() = Minv_ * f_;
    tmp_ = wnew_ + 0.5 * h * tmp2_;
    project(qnew_, tmp_, vnew_);
    if (!qnew_.allFinite() || !vnew_.allFinite() || !wnew_.allFinite())
      throw StepFailure("GNI produced a non-finite state", std::numeric_limits<double>::infinity());
    // publish (spec §4.1: half-step energy at t_{k+1/2}, node energy at t_{k+1})
    values_[0] = s.t + 0.5 * h;
    tmp_.noalias() = M_ * wnew_;
    values_[1] = 0.5 * wnew_.dot(tmp_);
    tmp_.noalias() = M_ * vnew_;
    values_[2] = 0.5 * vnew_.dot(tmp_);
    values_[3] = constraint_average;
    for (int i = 0; i < n_; ++i) values_[4 + i] = wnew_[i];
    // commit
    w_ = wnew_;
    s.q = qnew_;
    s.v = vnew_;
    s.t += h;
    t_mem_ = s.t;
    q_mem_ = s.q;
    h_last_ = h;
    initialised_ = true;
  }

  Traits traits() const override {
    return {2, true, true, {"half_step_energy", "horizontal_momentum", "constraint_average"}};
  }

  void quantity_names(std::vector<std::string>& names) const override {
    names = {"t_half", "energy_half", "energy_node", "constraint_average"};
    for (const auto& v : vnames_) names.push_back("vhalf_" + v);
  }
  void discrete_quantities(double* out) const override { std::copy(values_.begin(), values_.end(), out); }

 private:
  // f = coordinate force (f_shape, Jᵀ f_body) at (t, q, v), no allocation
  void force(double t, const Vec& q, const Vec& v) {
    if (!model_->has_forces()) {
      f_.setZero();
      return;
    }
    model_->forces(t, q, v, fr_, fg_);
    f_.head(nr_) = fr_;
    f_.segment<3>(nr_) = SE2::body_jacobian(q[nr_]).transpose() * fg_.head<3>();
  }
  // out = P(q) x, P = B_D (B_DᵀMB_D)⁻¹B_DᵀM with B_D = J⁻¹[[I,0],[−A,E]] (spec §2.0 basis form)
  void project(const Vec& q, const Vec& x, Vec& out) {
    const auto r = q.head(nr_);
    model_->connection(r, A_);
    model_->symmetry_basis(r, E_);
    const Eigen::Matrix3d Jt = SE2::body_jacobian(q[nr_]).transpose();
    B_.setZero();
    B_.topLeftCorner(nr_, nr_).setIdentity();
    B_.block(nr_, 0, 3, nr_).noalias() = -Jt * A_;
    B_.block(nr_, nr_, 3, k_ - nr_).noalias() = Jt * E_;
    MB_.noalias() = M_ * B_;
    BMB_.noalias() = B_.transpose() * MB_;
    llt_.compute(BMB_);
    tk_.noalias() = MB_.transpose() * x;
    llt_.solveInPlace(tk_);
    out.noalias() = B_ * tk_;
  }

  Init init_;
  const LieGroupModel* model_ = nullptr;
  int nr_ = 0, n_ = 0, k_ = 0;
  Mat M_, Minv_, A_, E_, B_, MB_, BMB_;
  Eigen::LLT<Mat> llt_;
  Vec w_, wnew_, qnew_, vnew_, f_, tmp_, tmp2_, tk_, fr_, fg_, q_mem_;
  double t_mem_ = 0.0, h_last_ = 0.0, t_start_ = 0.0;
  Vec qddot0_, q_start_, v_start_;
  bool have_qddot0_ = false;
  bool initialised_ = false;
  std::vector<std::string> names_, vnames_;
  std::vector<double> values_;
};

/// The group form (header): G = SO(3), retraction τ, no shape.
template <class G>
class GNIOnGroup final : public OpenIntegrator {
 public:
  explicit GNIOnGroup(Retraction r) : retraction_(r) {}

  void bind(const System& s) override {
    model_ = &require<LieGroupModel>(s, name());
    body_.bind(*model_, name());
    nq_ = model_->coordinate_dim();
    for (Vec* v : {&qnew_, &q_mem_}) v->resize(nq_);
    vnew_.resize(G::dim);
    initialised_ = false;
  }
  void start(const State& s) override {
    model_->check_state(s);
    initialised_ = false;
  }

  void step(State& s, double h) override {
    constexpr int d = G::coordinates;
    const bool fresh = !initialised_ || std::abs(s.t - t_mem_) > 1e-9 * (std::abs(h) + std::abs(s.t)) || s.q != q_mem_;
    const Matrix& P = body_.projector();
    const Matrix& M = body_.mass();
    const Algebra f = body_.force(s.t, s.q, s.v);
    Algebra xi, pminus;
    double constraint_average = 0.0;
    if (!fresh && h == -h_last_) {
      xi = xi_;  // retrace the last step: τ(−h_last ξ) = τ(h_last ξ)⁻¹ (the two-step map run backwards)
      pminus = body_.momentum(retraction_, h, xi);
    } else {
      if (fresh) {
        const Algebra xi0 = G::body_velocity_at(s.q.template head<d>(), s.v.template head<G::dim>());
        pminus = M * xi0 + 0.5 * h * (P * f + body_.constraint_force(xi0, Algebra::Zero()));
      } else {
        pminus = 2.0 * (P * pplus_) - pplus_ + h * (P * f);  // (6)
        const Algebra sum = pminus + pplus_;
        constraint_average = (sum - P * sum).template lpNorm<Eigen::Infinity>();  // Q*(p⁻ + p⁺), (5b)
      }
      xi = body_.solve_momentum(retraction_, h, pminus);
    }
    qnew_ = s.q;
    G::compose_at(retraction_, Algebra(h * xi), qnew_.template head<d>());
    const Algebra pplus = body_.momentum(retraction_, -h, xi);
    G::coordinate_velocity_at(qnew_.template head<d>(), xi, vnew_);  // the step's velocity, for f
    const Algebra f1 = body_.force(s.t + h, qnew_, vnew_);
    const Algebra xi_node = body_.mass_inverse() * (P * (pplus + 0.5 * h * f1));
    G::coordinate_velocity_at(qnew_.template head<d>(), xi_node, vnew_);
    if (!qnew_.allFinite() || !vnew_.allFinite() || !xi.allFinite())
      throw StepFailure("GNI produced a non-finite state", std::numeric_limits<double>::infinity());
    values_[0] = s.t + 0.5 * h;
    values_[1] = 0.5 * xi.dot(M * xi);
    values_[2] = 0.5 * xi_node.dot(M * xi_node);
    values_[3] = constraint_average;
    for (int i = 0; i < G::dim; ++i) values_[4 + i] = xi[i];
    xi_ = xi;
    pplus_ = pplus;
    s.q = qnew_;
    s.v = vnew_;
    s.t += h;
    t_mem_ = s.t;
    q_mem_ = s.q;
    h_last_ = h;
    initialised_ = true;
  }

  Traits traits() const override { return {2, true, false, {}}; }
  void quantity_names(std::vector<std::string>& names) const override {
    names = {"t_half", "energy_half", "energy_node", "constraint_average"};
    for (int i = 0; i < G::dim; ++i) names.push_back("xi_" + std::to_string(i + 1));
  }
  void discrete_quantities(double* out) const override { std::copy(values_.begin(), values_.end(), out); }

 private:
  using Algebra = typename G::Algebra;
  using Matrix = typename LieBodyDynamics<G>::Matrix;
  Retraction retraction_;
  const LieGroupModel* model_ = nullptr;
  LieBodyDynamics<G> body_;
  int nq_ = 0;
  Vec qnew_, vnew_, q_mem_;
  Algebra xi_ = Algebra::Zero(), pplus_ = Algebra::Zero();
  double t_mem_ = 0.0, h_last_ = 0.0;
  bool initialised_ = false;
  std::array<double, 4 + G::dim> values_{};
};

/// The plugin: the coordinate form on SE(2), the group form on SO(3), chosen in bind().
class GNI final : public Integrator {
 public:
  GNI(Init init, Retraction r) : init_(init), retraction_(r) {}
  void bind(const System& s) override {
    const LieGroupModel& m = require<LieGroupModel>(s, name());
    switch (m.group()) {
      case LieGroup::SE2: impl_ = std::make_unique<GNIOnSE2>(init_); break;
      case LieGroup::SO3: impl_ = std::make_unique<GNIOnGroup<SO3>>(retraction_); break;
    }
    impl_->set_name(name());
    impl_->bind(s);
  }
  // before bind(): what the SE(2) form said before issue 29 (its traits, its names without a layout)
  Traits traits() const override { return impl_ ? impl_->traits() : GNIOnSE2(init_).traits(); }
  void quantity_names(std::vector<std::string>& names) const override {
    if (impl_) impl_->quantity_names(names);
    else GNIOnSE2(init_).quantity_names(names);
  }
  void discrete_quantities(double* out) const override { impl_->discrete_quantities(out); }
  void start(const State& s) override { impl_->start(s); }
  void step(State& s, double h) override { impl_->step(s, h); }

 private:
  Init init_;
  Retraction retraction_;
  std::unique_ptr<OpenIntegrator> impl_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "gni";
  d.kind = PluginKind::Integrator;
  d.version = "1.1.0";  // 1.1: the group form on SO(3) (issue 29)
  d.summary = "Geometric nonholonomic integrator: momentum reflection, coordinate form on SE(2), group form on SO(3) (order 2)";
  d.seed = "001 (Kobilarov, Martin de Diego, Ferraro), Sec 4; spec 001 Sec 3.2; issue 29";
  ParamSpec init{"init", ParamType::String, "paper",
                 "SE(2): initial half-step velocity: paper (eq. 16), rattle_lambda0 (eq. 10a, lambda0 = 0) or exact "
                 "(continuous acceleration; removes the parasitic 2-cycle, spec 001 Sec 3.5). SO(3): always exact"};
  init.choices = {"paper", "rattle_lambda0", "exact"};
  ParamSpec ret{"retraction", ParamType::String, "cay",
                "SO(3) group form: the retraction of the discrete Lagrangian, cay (Cayley) or exp; not used on SE(2)"};
  ret.choices = {"cay", "exp"};
  d.params = {init, ret};
  d.make_integrator = [](const Parameters& p, const PluginFactory&) {
    const std::string& i = p.string("init");
    return std::make_unique<GNI>(i == "paper" ? Init::Paper : i == "exact" ? Init::Exact : Init::RattleLambda0,
                                 p.string("retraction") == "exp" ? Retraction::Exp : Retraction::Cayley);
  };
  // bind() also checks, on SE(2), a constant (locked and coordinate) mass and, on SO(3), no shape.
  d.needs = fixed_needs({LieGroupModel::model_name});
  d.examples = {{"init paper", {{"init", "paper"}}},
                {"init exact", {{"init", "exact"}}},
                {"exp", {{"retraction", "exp"}}}};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
