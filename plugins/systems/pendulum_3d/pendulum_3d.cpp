// The 3D pendulum on SO(3) (seed 003 §3, spec 003 §4a): one spherical rigid body (scalar J) about a
// fixed pivot at the origin, U(R) = −m g e3·(R ρ0) (paper (39), force +mg e3: stable at Rρ0 = e3, A2),
// spatial torque T = m g (Rρ0) × e3 (A3). State: q = (qw, qx, qy, qz), v = spatial Ω (layout of
// core/rigid_body_model.hpp). The "exact" solution is a fine RK4 of the continuous ODE
// (q̇ = ½ (0, Ω) * q, J Ω̇ = m g (Rρ0) × e3; spec §4a) with steps ≤ 2e-5, at most kMaxReferenceSteps
// of them (issue 26: t = 1e9 asked for 5e13 steps and ran for hours; it is now a one-line error).
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert_plugins/rigid_potentials.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/core/json_input.hpp>
#include <numbers>

namespace {

using namespace dalembert;

Vec3 vec3(const JsonCursor& c) {
  if (!c.json().is_array() || c.size() != 3) c.fail("must be an array of 3 numbers");
  return Vec3(c.at(0).number(), c.at(1).number(), c.at(2).number());
}

class Pendulum3D final : public RigidBodySystem, public Drawable {
 public:
  explicit Pendulum3D(const Parameters& p)
      : m_(p.number("m")), g_(p.number("g")), J_(p.number("J")), rho0_(vec3(json_parameter(p, "rho0"))),
        e3_(vec3(json_parameter(p, "e3"))), h_ref_(p.number("reference_step")) {}

  int bodies() const override { return 1; }
  bool translational() const override { return false; }
  double mass(int) const override { return m_; }
  double inertia(int) const override { return J_; }
  std::vector<std::unique_ptr<PotentialTerm>> make_potential() const override {
    std::vector<std::unique_ptr<PotentialTerm>> t;
    t.push_back(std::make_unique<rigid::PivotGravity>(m_, g_, rho0_, e3_));
    return t;
  }

  // The invariants of (41) and e3·Ω (spec §4a), and the rotation angle (robust, spec §2.7).
  void extra_diagnostic_names(std::vector<std::string>& n) const override {
    for (const char* c : {"Rrho0_dot_Omega", "norm_Rrho0_minus_1", "e3_dot_Omega", "angle"}) n.push_back(c);
  }
  void extra_diagnostics(const RigidSnapshot& s, double* out) const override {
    const Vec3 r = s.R[0] * rho0_;
    out[0] = r.dot(s.W[0]);
    out[1] = r.norm() - 1.0;
    out[2] = e3_.dot(s.W[0]);
    out[3] = so3::angle(s.R[0]);
  }

  bool has_exact_solution() const override { return true; }
  void exact_solution(const State& s0, double t, State& out) const override {
    const double T = t - s0.t;
    const long n = std::max(1L, reference_steps(s0.t, t));
    const double h = T / static_cast<double>(n);
    Eigen::Matrix<double, 7, 1> y;
    y << s0.q[0], s0.q[1], s0.q[2], s0.q[3], s0.v[0], s0.v[1], s0.v[2];
    auto f = [&](const Eigen::Matrix<double, 7, 1>& z) {
      Eigen::Matrix<double, 7, 1> d;
      const Eigen::Quaterniond q(z[0], z[1], z[2], z[3]);
      const Vec3 W(z[4], z[5], z[6]);
      const Eigen::Quaterniond qd = Eigen::Quaterniond(0.0, W.x(), W.y(), W.z()) * q;  // q̇ = ½ (0,Ω) q
      d[0] = 0.5 * qd.w(), d[1] = 0.5 * qd.x(), d[2] = 0.5 * qd.y(), d[3] = 0.5 * qd.z();
      const Vec3 r = q.normalized().toRotationMatrix() * rho0_;
      d.tail<3>() = (m_ * g_ / J_) * r.cross(e3_);  // J Ω̇ = m g (Rρ0) × e3
      return d;
    };
    for (long k = 0; k < n; ++k) {
      const auto k1 = f(y), k2 = f(y + 0.5 * h * k1), k3 = f(y + 0.5 * h * k2), k4 = f(y + h * k3);
      y += (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    out.t = t;
    out.q = y.head<4>();
    out.q /= out.q.norm();
    out.v = y.tail<3>();
  }

  // How the pendulum looks (core/drawable.hpp), in space: the rod from the pivot at the origin to
  // the centre of mass R ρ0 (z along e3's axis of the model), a ball there, its path traced.
  nlohmann::json drawing() const override {
    const double L = rho0_.norm() > 0 ? rho0_.norm() : 1.0;
    return {{"dimension", 3},
            {"frames", {{{"name", "body"}, {"transform", {{{"quaternion", {"qw", "qx", "qy", "qz"}}}}}},
                        {{"name", "bob"}, {"parent", "body"}, {"transform", {{{"translate", {rho0_.x(), rho0_.y(), rho0_.z()}}}}}}}},
            {"shapes", {{{"link", {"world", "bob"}}, {"color", "0.3"}, {"width", 2}},
                        {{"frame", "bob"}, {"sphere", {{"radius", 0.15 * L}}}}}},
            {"traces", {{{"frame", "bob"}, {"label", "centre of mass"}}}}};
  }

 private:
  /// The default step limit of one study task (study/limits.hpp): the reference is no more work.
  static constexpr double kMaxReferenceSteps = 1e8;

  /// ⌈|t − t0| / reference_step⌉, refused (one line) above kMaxReferenceSteps or for a non-finite t.
  long reference_steps(double t0, double t) const {
    const double n = std::ceil(std::abs(t - t0) / h_ref_);
    if (!(n <= kMaxReferenceSteps))
      throw Error("pendulum_3d: the exact solution at t = " + number_text(t, "%g") + " (from t0 = " +
                  number_text(t0, "%g") + ") needs " + number_text(n, "%.3g") + " RK4 steps of reference_step " +
                  number_text(h_ref_, "%g") + ", more than " + number_text(kMaxReferenceSteps, "%g") +
                  "; shorten the horizon or raise reference_step");
    return static_cast<long>(n);
  }

  double m_, g_, J_;
  Vec3 rho0_, e3_;
  double h_ref_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "pendulum_3d";
  d.kind = PluginKind::System;
  d.version = "1.0.1";
  d.summary = "3D pendulum on SO(3) (spherical body, fixed pivot), U = -m g e3.(R rho0); state (quaternion, spatial Omega)";
  d.seed = "003 (Baker & Gonzalez), Sec 3, Fig 1; spec 003 §4a";
  d.params = {
      {"m", ParamType::Number, 1.0, "mass (not given in the paper; spec A1: 1)", 0.0},
      {"g", ParamType::Number, 1.0, "gravity (spec A1: 1)"},
      {"J", ParamType::Number, 1.0, "scalar inertia about the pivot (spec A1: 1)", 1e-300},
      {"rho0", ParamType::Json, nlohmann::json::array({0.0, 0.0, 1.0}), "body-frame pivot-to-CoM vector"},
      {"e3", ParamType::Json, nlohmann::json::array({0.0, 0.0, 1.0}), "direction of the gravity force (+mg e3, eq. 39)"},
      // At least 1e-6: there RK4's truncation error (~h^4 = 1e-24) is far below round-off, so a smaller
      // step adds only time — quadratically many steps when an observer asks for the reference at each
      // recorded t (the parameter fuzzer's 1e-9 ran a shortened fig1 study for minutes).
      {"reference_step", ParamType::Number, 2e-5, "largest RK4 step of the 'exact' (reference) solution", 1e-6},
  };
  d.make_system = [](const Parameters& p) { return std::make_unique<Pendulum3D>(p); };
  // Spec 003 §4a IC (42): alpha(0) = 2 tan(3 pi/8) e2, q = (cos 3pi/8, 0, sin 3pi/8, 0), Omega(0) = (0.2, 0, 0.2).
  d.examples = {system_example("", {std::cos(3 * std::numbers::pi / 8), 0.0, std::sin(3 * std::numbers::pi / 8), 0.0}, {0.2, 0.0, 0.2}, 0.05)};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
