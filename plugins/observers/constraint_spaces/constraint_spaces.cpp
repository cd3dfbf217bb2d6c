// The discrete constraint space M_d and the exact discrete constraint space M^e_h through the
// initial point q0, sampled at the free coordinates of each recorded state (seed 002 Fig 4;
// spec 002 §3.1 M_d, §3.4 "Defining function of M^e_h for a general system"). For each state q,
// with free coordinates q_free and dependent coordinates q_dep (parameter "dependent", default the
// last r coordinates):
//   * M_d: q1_dep such that ω(q0, (q_free, q1_dep)) = 0 (midpoint, Newton);
//   * M^e: u ∈ R^{n−r} such that τφ_h(q0, B(q0)u)_free = q_free (Newton, Jacobian from the
//     variational equations), then q1_dep = τφ_h(q0, B(q0)u)_dep.
// For the nonholonomic particle at q0 = 0 these are z1 = x1 y1/2 and z1 = x1(√(1+y1²)−1)/asinh y1
// (spec 002 §4 item 4), both independent of h.
#include <cmath>
#include <dalembert_plugins/exact_discrete.hpp>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/core/json_input.hpp>
#include <Eigen/LU>
#include <limits>

namespace {
using namespace dalembert;

class ConstraintSpaces final : public Observer {
 public:
  ConstraintSpaces(std::vector<std::string> dependent, double h) : dep_names_(std::move(dependent)), h_(h) {}
  void bind(const System& sys, const Integrator&) override {
    const auto* m = dynamic_cast<const ConstrainedLagrangian*>(&sys);
    if (!m) throw Error("observer 'constraint_spaces' needs a ConstrainedLagrangian system; '" + sys.name() + "' is not");
    model_ = m;
    n_ = m->dof();
    r_ = m->num_constraints();
    const auto names = sys.layout().q;
    layout_q_ = names;
    dep_.clear();
    if (dep_names_.empty()) {
      for (int i = n_ - r_; i < n_; ++i) dep_.push_back(i);
    } else {
      for (const auto& d : dep_names_) {
        const auto it = std::find(names.begin(), names.end(), d);
        if (it == names.end()) throw Error("observer 'constraint_spaces': no coordinate named '" + d + "'");
        dep_.push_back(static_cast<int>(it - names.begin()));
      }
    }
    if (static_cast<int>(dep_.size()) != r_)
      throw Error("observer 'constraint_spaces': needs exactly r = " + std::to_string(r_) + " dependent coordinates");
    free_.clear();
    for (int i = 0; i < n_; ++i)
      if (std::find(dep_.begin(), dep_.end(), i) == dep_.end()) free_.push_back(i);
    cols_.clear();
    for (int a : dep_) cols_.push_back(names[a] + "_Md");
    for (int a : dep_) cols_.push_back(names[a] + "_Me");
    cols_.push_back("Md_minus_Me");
    dm_.bind(*m);
    ex_.bind(*m, 0.0, 0.05);
  }
  void columns(std::vector<std::string>& c) const override { c = cols_; }
  void start(const State& s0) override {
    q0_ = s0.q;
    max_gap_ = 0.0;
    check_dependent();
  }
  void observe(const State& s, const StepValues&, double* out) override {
    if ((s.q - q0_).lpNorm<Eigen::Infinity>() == 0.0) {
      for (int a = 0; a < 2 * r_; ++a) out[a] = q0_[dep_[a % r_]];
      out[2 * r_] = 0.0;
      return;
    }
    const Vec qd = discrete(s.q), qe = exact(s.q);
    double gap = 0.0;
    for (int a = 0; a < r_; ++a) {
      out[a] = qd[dep_[a]];
      out[r_ + a] = qe[dep_[a]];
      running_max(gap, std::abs(qd[dep_[a]] - qe[dep_[a]]));
    }
    out[2 * r_] = gap;
    running_max(max_gap_, gap);
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("max_Md_minus_Me", max_gap_);
  }

 private:
  // The dependent coordinates must be solvable for: A(q0) restricted to their columns invertible
  // (else Newton below divides by zero and the columns would be NaN).
  void check_dependent() const {
    Mat A(r_, n_), Adep(r_, r_);
    model_->constraint_matrix(q0_, A);
    for (int b = 0; b < r_; ++b) Adep.col(b) = A.col(dep_[b]);
    Eigen::FullPivLU<Mat> lu(Adep);
    lu.setThreshold(1e-10);
    if (lu.rank() < r_) {
      std::string names;
      for (int b : dep_) names += (names.empty() ? "" : ", ") + layout_q_[b];
      throw Error("observer 'constraint_spaces': the constraints do not determine the dependent coordinates (" + names +
                  ") at q0 (A restricted to them has rank " + std::to_string(lu.rank()) + " < r = " +
                  std::to_string(r_) + "); name others in \"dependent\"");
    }
  }
  // ω(q0, q1) = 0 for the dependent coordinates of q1 (spec §3.1).
  Vec discrete(const Vec& q) {
    Vec q1 = q, om(r_), om2(r_);
    Mat J(r_, r_);
    for (int it = 0; it < 30; ++it) {
      dm_.constraint(q0_, q1, h_, om);
      for (int b = 0; b < r_; ++b) {
        const double d = 1e-7 * std::max(1.0, std::abs(q1[dep_[b]]));
        Vec qp = q1;
        qp[dep_[b]] += d;
        dm_.constraint(q0_, qp, h_, om2);
        J.col(b) = (om2 - om) / d;
      }
      const Vec du = J.partialPivLu().solve(om);
      for (int b = 0; b < r_; ++b) q1[dep_[b]] -= du[b];
      if (du.lpNorm<Eigen::Infinity>() < 1e-15 * (1.0 + q1.lpNorm<Eigen::Infinity>())) break;
    }
    return q1;
  }
  // τφ_h(q0, B(q0)u)_free = q_free (spec §3.4, defining function of M^e_h).
  Vec exact(const Vec& q) {
    const int k = n_ - r_;
    Mat B(n_, k), Phi(2 * n_, 2 * n_);
    ex_.frame().evaluate(q0_, B);
    Vec u = B.colPivHouseholderQr().solve((q - q0_) / h_), qq(n_), vv(n_), Iq(n_), Iv(n_), res(k);
    double L;
    for (int it = 0; it < 30; ++it) {
      qq = q0_;
      vv = B * u;
      ex_.flow().variational_flow(qq, vv, h_, Phi, L, Iq, Iv);
      Mat J(k, k);
      const Mat JB = Phi.topRightCorner(n_, n_) * B;
      for (int i = 0; i < k; ++i) {
        res[i] = qq[free_[i]] - q[free_[i]];
        J.row(i) = JB.row(free_[i]);
      }
      const Vec du = J.partialPivLu().solve(res);
      u -= du;
      if (du.lpNorm<Eigen::Infinity>() < 1e-15 * (1.0 + u.lpNorm<Eigen::Infinity>())) break;
    }
    qq = q0_;
    vv = B * u;
    ex_.flow().flow(qq, vv, h_);
    return qq;
  }

  std::vector<std::string> dep_names_;
  std::vector<std::string> layout_q_;
  const ConstrainedLagrangian* model_ = nullptr;
  double h_;
  int n_ = 0, r_ = 0;
  std::vector<int> dep_, free_;
  std::vector<std::string> cols_;
  DiscreteNonholonomicMechanics dm_;
  ExactDiscrete ex_;
  Vec q0_;
  double max_gap_ = 0.0;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "constraint_spaces";
  d.kind = PluginKind::Observer;
  d.version = "1.1.0";  // 1.1: refuses dependent coordinates the constraints do not determine (issue 27)
  d.summary = "Dependent coordinates of the discrete (M_d) and exact (M^e_h) constraint spaces through q0 at each "
              "state's free coordinates (seed 002 Fig 4)";
  d.seed = "002 (Fig 4; spec 002 §3.1, §3.4)";
  d.params = {{"dependent", ParamType::Json, nullptr, "names of the r dependent coordinates (default: the last r)"},
              {"h", ParamType::Number, 1.0, "time step h of M_d and M^e_h", 1e-6, 100.0}};
  d.make_observer = [](const Parameters& p) {
    std::vector<std::string> dep;
    const JsonCursor j = json_parameter(p, "dependent");
    if (!j.json().is_null())
      for (std::size_t i = 0; i < j.size(); ++i) dep.push_back(j.at(i).string());
    return std::make_unique<ConstraintSpaces>(dep, p.number("h"));
  };
  d.needs = fixed_needs({ConstrainedLagrangian::model_name});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
