// The Suslov problem (issue 29): a rigid body turning about a fixed point, R ∈ SO(3), body angular
// velocity ω, kinetic energy ½ωᵀIω with a full inertia tensor I, and the body-fixed nonholonomic
// constraint ⟨ω, e⟩ = 0 (Suslov 1951; Bloch, "Nonholonomic Mechanics and Control", 2nd ed. 2015,
// §1.7 and §5.8; Fedorov & Zenkov, Nonlinearity 18 (2005) 2211, §4). No potential.
//
// State (LieGroupModel on SO(3), no shape): q = (qw, qx, qy, qz) a unit quaternion, R = R(q) body →
// space; v = ω (body). Equations (the Euler–Poincaré–Suslov equations, Bloch eq. (1.7.x); Fedorov–
// Zenkov eq. (4.1)): Ṙ = R ω̂, I ω̇ = Iω × ω + λ e, ⟨ω, e⟩ = 0.
//
// Closed form (README §"Closed form", derived there): in a right-handed orthonormal frame (a₁, a₂, e)
// that diagonalises I on e^⊥ (a_iᵀIa_j = I_i δ_ij), with a = a₁ᵀIe, b = a₂ᵀIe, ω = ω₁a₁ + ω₂a₂,
//     I₁ω̇₁ = −(aω₁ + bω₂) ω₂,   I₂ω̇₂ = (aω₁ + bω₂) ω₁.
// With ω₁ = √(2E/I₁) cos φ, ω₂ = √(2E/I₂) sin φ: φ̇ = k cos(φ − β), k = √(2E) ρ/√(I₁I₂),
// ρ = √(a²/I₁ + b²/I₂), β = atan2(b/√I₂, a/√I₁); so ψ = φ − β obeys ψ̇ = k cos ψ and
//     ψ(t) = π[σ<0] + gd(atanh(σ sin ψ₀) + σ k t),   σ = sign cos ψ₀,   gd(u) = 2 atan(tanh(u/2)).
// The attitude R(t) (no closed form when k ≠ 0) by the fourth-order Magnus method on panels of
// width ≤ 2.5e-4 with the exact ω(t) (Iserles et al., Acta Numerica 9 (2000) §4.2, eq. (4.18));
// when k = 0 (e an eigenvector of I, or E = 0) ω is constant and R(t) = R₀ exp(tω̂) exactly.
#include <Eigen/Eigenvalues>
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/math/so3_group.hpp>
#include <dalembert/plugin/export.hpp>

namespace {

using namespace dalembert;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

class Suslov final : public System, public LieGroupModel, public Drawable {
 public:
  Suslov(const Mat3& I, const Vec3& e) : I_(I), e_(e.normalized()) {
    if (e.norm() == 0.0) throw InputError("suslov", "the constraint vector e must not be zero");
    Eigen::SelfAdjointEigenSolver<Mat3> es(I_);
    if (!(es.eigenvalues().minCoeff() > 0.0)) throw InputError("suslov", "the inertia tensor must be positive definite");
    // E: an orthonormal basis of e^⊥, right-handed with e (a₁ × a₂ = e)
    Vec3 t = std::abs(e_[0]) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
    const Vec3 b1 = (t - t.dot(e_) * e_).normalized();
    E_.col(0) = b1;
    E_.col(1) = e_.cross(b1);
    // the frame (a₁, a₂, e) diagonalising I on e^⊥ (closed form)
    const Eigen::Matrix2d P = E_.transpose() * I_ * E_;
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> ps(P);
    a1_ = E_ * ps.eigenvectors().col(0);
    a2_ = e_.cross(a1_);
    I1_ = a1_.dot(I_ * a1_);
    I2_ = a2_.dot(I_ * a2_);
    a_ = a1_.dot(I_ * e_);
    b_ = a2_.dot(I_ * e_);
  }

  Layout layout() const override { return {{"qw", "qx", "qy", "qz"}, {"wx", "wy", "wz"}}; }
  double energy(const State& s) const override {
    const Vec3 w = s.v.head<3>();
    return 0.5 * w.dot(I_ * w);
  }
  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"M2", "psi", "orthogonality_defect", "quaternion_norm_error", "omega_e"};
  }
  void diagnostics(const State& s, double* out) const override {
    const Vec3 w = s.v.head<3>();
    out[0] = (I_ * w).squaredNorm();  // |Iω|², conserved when e is an eigenvector of I
    out[1] = psi_of(w);
    out[2] = (SO3::rotation_at(s.q).transpose() * SO3::rotation_at(s.q) - Mat3::Identity()).cwiseAbs().maxCoeff();
    out[3] = std::abs(s.q.head<4>().norm() - 1.0);
    out[4] = w.dot(e_);
  }
  double constraint_residual(const State& s) const override { return std::abs(s.v.head<3>().dot(e_)); }
  bool project(State& s) const override {
    const Vec3 w = s.v.head<3>();
    s.v.head<3>() = w - w.dot(e_) * e_;
    return true;
  }

  // ---- LieGroupModel ----
  LieGroup group() const override { return LieGroup::SO3; }
  int shape_dim() const override { return 0; }
  int num_symmetry_directions() const override { return 2; }
  void locked_mass(ConstVecRef, MatRef M) const override { M = I_; }
  void connection(ConstVecRef, MatRef) const override {}
  void symmetry_basis(ConstVecRef, MatRef E) const override { E = E_; }
  void check_state(const State& s) const override {
    if (s.q.size() != 4 || s.v.size() != 3) throw InputError("suslov", "the state is q = (qw, qx, qy, qz), v = (wx, wy, wz)");
    if (std::abs(s.q.norm() - 1.0) > 1e-12)
      throw InputError("suslov", "q = (qw, qx, qy, qz) must be a unit quaternion (|q| − 1 = " +
                       std::to_string(s.q.norm() - 1.0) + ")");
  }

  // ---- closed form ----
  bool has_exact_solution() const override { return true; }
  void exact_solution(const State& s0, double t, State& out) const override {
    const double dt = t - s0.t;
    const Vec3 w0 = s0.v.head<3>();
    out.t = t;
    out.v = Vec::Zero(3);
    out.q = s0.q;
    const double k = rate(w0);
    if (k == 0.0 || dt == 0.0) {  // ω constant: R(t) = R₀ exp(dt ω̂)
      out.v.head<3>() = w0;
      if (dt != 0.0) SO3::compose_at(Retraction::Exp, dt * w0, out.q);
      return;
    }
    // Magnus, order 4, Gauss nodes c₁,₂ = ½ ∓ √3/6: Ω = (h/2)(ω₁ + ω₂) + (√3/12) h² ω₁ × ω₂
    const int panels = std::max(1, static_cast<int>(std::ceil(std::abs(dt) / 2.5e-4)));
    const double hp = dt / panels, c1 = 0.5 - std::sqrt(3.0) / 6.0, c2 = 0.5 + std::sqrt(3.0) / 6.0;
    for (int p = 0; p < panels; ++p) {
      const Vec3 o1 = omega(w0, (p + c1) * hp), o2 = omega(w0, (p + c2) * hp);
      const Vec3 Om = 0.5 * hp * (o1 + o2) + (std::sqrt(3.0) / 12.0) * hp * hp * o1.cross(o2);
      SO3::compose_at(Retraction::Exp, Om, out.q);
    }
    out.v.head<3>() = omega(w0, dt);
  }

  // How the body looks (core/drawable.hpp), in space: turning about its fixed centre at attitude q,
  // drawn as its ellipsoid of inertia (semi-axes 1/√I of the diagonal) with the body-fixed vector e
  // of the constraint ⟨ω, e⟩ = 0 (red); the tip of body axis 1 is traced.
  nlohmann::json drawing() const override {
    const double s = 1.0 / std::sqrt(I_.diagonal().minCoeff());
    return {{"dimension", 3},
            {"frames", {{{"name", "body"}, {"transform", {{{"quaternion", {"qw", "qx", "qy", "qz"}}}}}}}},
            {"shapes", {{{"frame", "body"},
                         {"ellipsoid", {{"semi_axes", {1.0 / std::sqrt(I_(0, 0)), 1.0 / std::sqrt(I_(1, 1)),
                                                       1.0 / std::sqrt(I_(2, 2))}}}}},
                        {{"frame", "body"}, {"line", {{0.0, 0.0, 0.0}, {1.3 * s * e_.x(), 1.3 * s * e_.y(), 1.3 * s * e_.z()}}},
                         {"color", "tab:red"}, {"width", 3}}}},
            {"traces", {{{"frame", "body"}, {"point", {1.0 / std::sqrt(I_(0, 0)), 0.0, 0.0}}, {"label", "tip of body axis 1"}}}}};
  }

 private:
  // k = √(2E) ρ / √(I₁I₂) of the energy level of ω₀
  double rate(const Vec3& w0) const {
    const double E = 0.5 * w0.dot(I_ * w0), rho = std::sqrt(a_ * a_ / I1_ + b_ * b_ / I2_);
    return std::sqrt(2.0 * E) * rho / std::sqrt(I1_ * I2_);
  }
  double beta() const { return std::atan2(b_ / std::sqrt(I2_), a_ / std::sqrt(I1_)); }
  double psi_of(const Vec3& w) const {
    const double w1 = w.dot(a1_), w2 = w.dot(a2_);
    return std::atan2(std::sqrt(I2_) * w2, std::sqrt(I1_) * w1) - beta();
  }
  // the closed form ω(τ) from ω₀ (header)
  Vec3 omega(const Vec3& w0, double tau) const {
    const double w1 = w0.dot(a1_), w2 = w0.dot(a2_);
    const double E = 0.5 * (I1_ * w1 * w1 + I2_ * w2 * w2);  // ⟨ω₀, e⟩ = 0 assumed
    const double k = rate(w0), psi0 = std::atan2(std::sqrt(I2_) * w2, std::sqrt(I1_) * w1) - beta();
    const double c = std::cos(psi0), sg = c < 0.0 ? -1.0 : 1.0;
    double psi = psi0;
    if (c != 0.0) {
      const double u = std::atanh(sg * std::sin(psi0)) + sg * k * tau;
      psi = (sg < 0.0 ? M_PI : 0.0) + 2.0 * std::atan(std::tanh(0.5 * u));
    }
    const double phi = psi + beta();
    return std::sqrt(2.0 * E / I1_) * std::cos(phi) * a1_ + std::sqrt(2.0 * E / I2_) * std::sin(phi) * a2_;
  }

  Mat3 I_;
  Vec3 e_;
  Eigen::Matrix<double, 3, 2> E_;
  Vec3 a1_, a2_;
  double I1_ = 0, I2_ = 0, a_ = 0, b_ = 0;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "suslov";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Suslov problem: rigid body on SO(3) (quaternion q, body omega) with <omega, e> = 0; closed form";
  d.seed = "issue 29; Bloch, Nonholonomic Mechanics and Control, Sec 1.7; Fedorov & Zenkov, Nonlinearity 18 (2005)";
  d.params = {{"I11", ParamType::Number, 1.0, "inertia tensor, body frame (kg m^2)"},
              {"I22", ParamType::Number, 2.0, "inertia tensor"},
              {"I33", ParamType::Number, 3.0, "inertia tensor"},
              {"I12", ParamType::Number, 0.1, "product of inertia"},
              {"I13", ParamType::Number, 0.3, "product of inertia (0 with I23 = 0 and e = e3: e is an eigenvector)"},
              {"I23", ParamType::Number, 0.2, "product of inertia"},
              {"e1", ParamType::Number, 0.0, "body-fixed constraint vector e (normalised): <omega, e> = 0"},
              {"e2", ParamType::Number, 0.0, "constraint vector"},
              {"e3", ParamType::Number, 1.0, "constraint vector"}};
  d.make_system = [](const Parameters& p) {
    Mat3 I;
    I << p.number("I11"), p.number("I12"), p.number("I13"),  //
        p.number("I12"), p.number("I22"), p.number("I23"),    //
        p.number("I13"), p.number("I23"), p.number("I33");
    return std::make_unique<Suslov>(I, Vec3(p.number("e1"), p.number("e2"), p.number("e3")));
  };
  // identity attitude, ω ⊥ e₃; the second: e an eigenvector (ω constant, R = exp(tω̂))
  d.examples = {system_example("", {1, 0, 0, 0}, {1.0, 0.5, 0.0}, 0.05),
                system_example("eigenvector", {1, 0, 0, 0}, {1.0, 0.5, 0.0}, 0.05, {{"I13", 0.0}, {"I23", 0.0}})};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
