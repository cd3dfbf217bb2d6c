#pragma once
// The rigid-body model (spec 003 §3.0): n SPHERICAL rigid bodies on SE(3)ⁿ — scalar masses m_i,
// scalar inertias J_i — with a potential U(x, R) made of composable pieces (PotentialTerm) that
// return forces F_i = −∂U/∂x_i and SPATIAL torques T_i = R_i M_i = −∂U/∂ϑ_i under the left
// perturbation R_i → exp(S(ϑ)) R_i (spec §2.6). The maps (21), (23), (25), (27), (30) ask for it.
//
// State layout (documented, used by every plugin of seed 003):
//   translational systems: per body i  q = (x_i, y_i, z_i, qw_i, qx_i, qy_i, qz_i)   (7 numbers)
//                                      v = (vx_i, vy_i, vz_i, Wx_i, Wy_i, Wz_i)       (6 numbers)
//   rotation-only systems (a fixed pivot, e.g. the 3D pendulum): q = (qw, qx, qy, qz), v = (Wx, Wy, Wz).
// The attitude is a unit quaternion (global, no singularity at φ = π) with R = R(q) body → inertial;
// W = Ω is the SPATIAL angular velocity (Ṙ = S(Ω) R). The integrators keep their own attitude
// storage (α, quaternion or chart, spec §2.7) and write the quaternion back after each step.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <boost/config.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dalembert {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

/// One piece of the potential (gravity, binder bonds, particle–particle or particle–wall contact).
/// A term may keep internal state (a neighbour list): every owner (integrator, system evaluation)
/// gets its own instances from RigidBodyModel::make_potential().
class BOOST_SYMBOL_VISIBLE PotentialTerm {
 public:
  virtual ~PotentialTerm();
  /// Names of the energies it reports (e.g. {"U_m", "U_a", "U_s"}).
  virtual std::vector<std::string> energy_names() const = 0;
  /// True if the term is not translation invariant (wall, gravity): its forces are external and
  /// enter the impulse balance P_k − P_0 = Σ impulses (spec §4b "Momentum").
  virtual bool external() const { return false; }
  /// Writes its energies into U[0..energy_names().size()) and, when F and T are non-null, ADDS its
  /// forces and spatial torques. x, R, F, T have one entry per body. No heap allocation in the
  /// steady state (neighbour-list rebuilds may grow their buffers).
  virtual void evaluate(const Vec3* x, const Mat3* R, Vec3* F, Vec3* T, double* U) = 0;
};

class BOOST_SYMBOL_VISIBLE RigidBodyModel {
 public:
  static constexpr const char* model_name = "RigidBodyModel (n spherical rigid bodies on SE(3)^n)";
  virtual ~RigidBodyModel();

  virtual int bodies() const = 0;
  /// False for a fixed pivot (rotation only; x ≡ 0, v ≡ 0 are not in the state).
  virtual bool translational() const = 0;
  virtual double mass(int i) const = 0;
  virtual double inertia(int i) const = 0;  // scalar J_i (spherical body)
  /// Fresh potential pieces (the caller owns them).
  virtual std::vector<std::unique_ptr<PotentialTerm>> make_potential() const = 0;
};

// ---- State packing (the layout above) ---------------------------------------------------------

inline int rigid_q_per_body(const RigidBodyModel& m) { return m.translational() ? 7 : 4; }
inline int rigid_v_per_body(const RigidBodyModel& m) { return m.translational() ? 6 : 3; }

/// Names for the layout above; a suffix _i only when n > 1.
Layout rigid_body_layout(int n, bool translational);

/// Reads body i of a state: x, v are zero for rotation-only systems.
inline void read_body(const RigidBodyModel& m, const State& s, int i, Vec3& x, Eigen::Quaterniond& q, Vec3& v, Vec3& W) {
  const int nq = rigid_q_per_body(m), nv = rigid_v_per_body(m);
  const double* pq = s.q.data() + static_cast<Eigen::Index>(i) * nq;
  const double* pv = s.v.data() + static_cast<Eigen::Index>(i) * nv;
  if (m.translational()) {
    x = Vec3(pq[0], pq[1], pq[2]);
    v = Vec3(pv[0], pv[1], pv[2]);
    pq += 3;
    pv += 3;
  } else {
    x.setZero();
    v.setZero();
  }
  q = Eigen::Quaterniond(pq[0], pq[1], pq[2], pq[3]);
  W = Vec3(pv[0], pv[1], pv[2]);
}

inline void write_body(const RigidBodyModel& m, State& s, int i, const Vec3& x, const Eigen::Quaterniond& q, const Vec3& v,
                       const Vec3& W) {
  const int nq = rigid_q_per_body(m), nv = rigid_v_per_body(m);
  double* pq = s.q.data() + static_cast<Eigen::Index>(i) * nq;
  double* pv = s.v.data() + static_cast<Eigen::Index>(i) * nv;
  if (m.translational()) {
    pq[0] = x.x(), pq[1] = x.y(), pq[2] = x.z();
    pv[0] = v.x(), pv[1] = v.y(), pv[2] = v.z();
    pq += 3;
    pv += 3;
  }
  pq[0] = q.w(), pq[1] = q.x(), pq[2] = q.y(), pq[3] = q.z();
  pv[0] = W.x(), pv[1] = W.y(), pv[2] = W.z();
}

/// All potential pieces of a model with summed forces/torques and the external force.
/// Buffers are sized once (bind); evaluate() does not allocate.
class RigidBodyForces {
 public:
  void bind(const RigidBodyModel& m) {
    n_ = m.bodies();
    terms_ = m.make_potential();
    names_.clear();
    offsets_.clear();
    for (const auto& t : terms_) {
      offsets_.push_back(names_.size());
      for (auto& s : t->energy_names()) names_.push_back(s);
    }
    U_.assign(names_.size(), 0.0);
    Fe_.assign(static_cast<std::size_t>(n_), Vec3::Zero());
    Te_.assign(static_cast<std::size_t>(n_), Vec3::Zero());
  }
  int bodies() const { return n_; }
  const std::vector<std::string>& energy_names() const { return names_; }
  const std::vector<double>& energies() const { return U_; }
  double potential() const {
    double s = 0.0;
    for (double u : U_) s += u;
    return s;
  }

  /// F, T (size n) are overwritten; returns U; F_ext = Σ forces of the external terms.
  double evaluate(const Vec3* x, const Mat3* R, Vec3* F, Vec3* T, Vec3& F_ext) {
    for (int i = 0; i < n_; ++i) F[i].setZero(), T[i].setZero();
    F_ext.setZero();
    for (std::size_t k = 0; k < terms_.size(); ++k) {
      auto& t = *terms_[k];
      if (!t.external()) {
        t.evaluate(x, R, F, T, U_.data() + offsets_[k]);
        continue;
      }
      for (int i = 0; i < n_; ++i) Fe_[i].setZero(), Te_[i].setZero();
      t.evaluate(x, R, Fe_.data(), Te_.data(), U_.data() + offsets_[k]);
      for (int i = 0; i < n_; ++i) F[i] += Fe_[i], T[i] += Te_[i], F_ext += Fe_[i];
    }
    return potential();
  }
  /// Energies only.
  double energy(const Vec3* x, const Mat3* R) {
    for (std::size_t k = 0; k < terms_.size(); ++k) terms_[k]->evaluate(x, R, nullptr, nullptr, U_.data() + offsets_[k]);
    return potential();
  }

 private:
  int n_ = 0;
  std::vector<std::unique_ptr<PotentialTerm>> terms_;
  std::vector<std::string> names_;
  std::vector<std::size_t> offsets_;
  std::vector<double> U_;
  std::vector<Vec3> Fe_, Te_;
};

/// The configuration of a state, unpacked: positions, rotation matrices, velocities, spatial Ω.
struct RigidSnapshot {
  std::vector<Vec3> x, v, W;
  std::vector<Mat3> R;
  void read(const RigidBodyModel& m, const State& s) {
    const auto n = static_cast<std::size_t>(m.bodies());
    x.resize(n), v.resize(n), W.resize(n), R.resize(n);
    for (int i = 0; i < m.bodies(); ++i) {
      Eigen::Quaterniond q;
      read_body(m, s, i, x[i], q, v[i], W[i]);
      R[i] = q.normalized().toRotationMatrix();
    }
  }
};

/// A system that is a RigidBodyModel: layout, energy E = Σ ½m|v|² + ½J|Ω|² + U (spec §3.0) and the
/// diagnostics KE_t, KE_r, every potential piece by name, E, P = Σ m v, S = Σ J Ω (spin),
/// L = Σ (x × m v + J Ω), followed by the system's own. Header-only; safe to share between threads.
class RigidBodySystem : public System, public RigidBodyModel {
 public:
  Layout layout() const override { return rigid_body_layout(bodies(), translational()); }

  double energy(const State& s) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    prepare(s);
    return kinetic_t() + kinetic_r() + eval_.energy(snap_.x.data(), snap_.R.data());
  }

  void diagnostic_names(std::vector<std::string>& n) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!bound_) eval_.bind(*this), bound_ = true;
    n.clear();
    if (translational()) n.push_back("KE_t");
    n.push_back("KE_r");
    for (const auto& u : eval_.energy_names()) n.push_back(u);
    n.push_back("E");
    if (translational())
      for (const char* c : {"P_x", "P_y", "P_z"}) n.push_back(c);
    for (const char* c : {"S_x", "S_y", "S_z"}) n.push_back(c);
    if (translational())
      for (const char* c : {"L_x", "L_y", "L_z"}) n.push_back(c);
    extra_diagnostic_names(n);
  }

  void diagnostics(const State& s, double* out) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    prepare(s);
    const double U = eval_.energy(snap_.x.data(), snap_.R.data());
    const double kt = kinetic_t(), kr = kinetic_r();
    if (translational()) *out++ = kt;
    *out++ = kr;
    for (double u : eval_.energies()) *out++ = u;
    *out++ = kt + kr + U;
    Vec3 P = Vec3::Zero(), S = Vec3::Zero(), L = Vec3::Zero();
    for (int i = 0; i < bodies(); ++i) {
      P += mass(i) * snap_.v[i];
      S += inertia(i) * snap_.W[i];
      L += mass(i) * snap_.x[i].cross(snap_.v[i]);
    }
    L += S;
    if (translational())
      for (int k = 0; k < 3; ++k) *out++ = P[k];
    for (int k = 0; k < 3; ++k) *out++ = S[k];
    if (translational())
      for (int k = 0; k < 3; ++k) *out++ = L[k];
    extra_diagnostics(snap_, out);
  }

 protected:
  virtual void extra_diagnostic_names(std::vector<std::string>&) const {}
  virtual void extra_diagnostics(const RigidSnapshot&, double*) const {}

 private:
  void prepare(const State& s) const {
    if (!bound_) eval_.bind(*this), bound_ = true;
    snap_.read(*this, s);
  }
  double kinetic_t() const {
    double k = 0;
    for (int i = 0; i < bodies(); ++i) k += 0.5 * mass(i) * snap_.v[i].squaredNorm();
    return k;
  }
  double kinetic_r() const {
    double k = 0;
    for (int i = 0; i < bodies(); ++i) k += 0.5 * inertia(i) * snap_.W[i].squaredNorm();
    return k;
  }
  mutable std::mutex mutex_;
  mutable bool bound_ = false;
  mutable RigidBodyForces eval_;
  mutable RigidSnapshot snap_;
};

}  // namespace dalembert
