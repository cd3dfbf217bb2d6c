#pragma once
// The common kernel of the explicit RRP maps of spec 003 §3 (Baker & Gonzalez eqs. (21), (23),
// (25), (27), (30)) on a RigidBodyModel. The integrator plugins are thin wrappers that pick a Map.
//
// Per step, one force/torque evaluation; (F_k, T_k) is cached from the previous step (spec §3.0).
// The attitude of each body is kept in the chosen storage (spec §2.7); the state's quaternion is
// written from it after each step. If q or v is changed from outside between steps (it differs
// from what the last step wrote), the kernel re-synchronises (start()).
//
// Published discrete quantities: the external (wall/gravity) impulse I_k accumulated with the
// map's own quadrature (h/2 (F^w_k + F^w_{k+1}) for (21)/(23)/(25); h F^w_k for (27)/(30)) and the
// balance residual P_k − P_0 − I_k (spec §4b "Momentum"), which is exact up to round-off.
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert/math/rodrigues.hpp>
#include <string>
#include <vector>

namespace dalembert::rrp {

enum class Map {
  M21,  // (21) body frame, exact root (check of (23))
  M23,  // (23) spatial frame, exact root (16): Δα = 2h/(1+√(1−h²|w|²)) w
  M25,  // (25) truncated increment Δα = h w (velocity Verlet / explicit Newmark)
  M27,  // (27) Campello et al., explicit, first order: kick(h) then drift with Δα = h Ω_{k+1}
  M30   // (30) "27*": (27) with the exact root Δα = 2h/(1+√(1−h²|Ω_{k+1}|²)) Ω_{k+1}
};

class MapKernel {
 public:
  MapKernel(Map map, Storage storage) : map_(map), storage_(storage) {}

  Traits traits() const {
    Traits t;
    t.explicit_method = true;
    t.preserves = {"linear_momentum", "spin_angular_momentum", "symplectic", "impulse_balance"};
    if (map_ == Map::M27 || map_ == Map::M30) {
      t.order = 1;  // kick(h) ∘ drift(h): symplectic, first order, not symmetric (spec §3.6)
      t.symmetric = false;
    } else {
      t.order = 2;  // Strang splitting kick(h/2) ∘ drift(h) ∘ kick(h/2) (spec §3.6)
      t.symmetric = true;
    }
    return t;
  }

  void bind(const RigidBodyModel& m) {
    model_ = &m;
    n_ = m.bodies();
    trans_ = m.translational();
    forces_.bind(m);
    const auto N = static_cast<std::size_t>(n_);
    m_.resize(N), J_.resize(N);
    for (int i = 0; i < n_; ++i) m_[i] = m.mass(i), J_[i] = m.inertia(i);
    x_.assign(N, Vec3::Zero()), v_ = x_, W_ = x_, F_ = x_, T_ = x_, Fn_ = x_, Tn_ = x_, w_ = x_, da_ = x_;
    R_.assign(N, Mat3::Identity());
    att_.assign(N, Attitude(storage_));
    bound_ = true;
  }

  void start(const State& s) {
    for (int i = 0; i < n_; ++i) {
      Eigen::Quaterniond q;
      read_body(*model_, s, i, x_[i], q, v_[i], W_[i]);
      att_[i].set(q);
      R_[i] = att_[i].R();
    }
    forces_.evaluate(x_.data(), R_.data(), F_.data(), T_.data(), Fext_);
    impulse_.setZero();
    P0_ = momentum();
    last_q_ = s.q;
    last_v_ = s.v;
    started_ = true;
  }

  /// One step of signed size h. Throws StepFailure (state unchanged) when the exact root does not
  /// exist (h|w| ≥ 1, spec §2.7 / A4).
  void step(State& s, double h) {
    try {
      advance(s, h);
    } catch (...) {
      started_ = false;  // the state is unchanged; internal buffers may not be: re-read it next time
      throw;
    }
  }

 private:
  void advance(State& s, double h) {
    // Re-synchronise only if q or v were changed from outside (the runner sets t = t0 + k h itself).
    if (!started_ || s.q != last_q_ || s.v != last_v_) start(s);
    const double hh = 0.5 * h;
    // 1./1'. The rotational kick and the increment, for all bodies, BEFORE anything is changed.
    for (int i = 0; i < n_; ++i) {
      switch (map_) {
        case Map::M23:
        case Map::M25:
          w_[i] = W_[i] + (hh / J_[i]) * T_[i];  // (23b): w = Ω_k + h/(2J) T_k
          break;
        case Map::M21: {
          // (21b) body frame: w_b = ω_k + h M_k/(2J), ω_k = R_kᵀ Ω_k, M_k = R_kᵀ T_k; Δα = c R_k w_b.
          // w_[i] holds w_b; its spatial image R_k w_b is used for the increment.
          w_[i] = R_[i].transpose() * W_[i] + (hh / J_[i]) * (R_[i].transpose() * T_[i]);
          break;
        }
        case Map::M27:
        case Map::M30: w_[i] = W_[i] + (h / J_[i]) * T_[i]; break;  // (27): Ω_{k+1} = Ω_k + h/J T_k
      }
      const Vec3 ws = map_ == Map::M21 ? Vec3(R_[i] * w_[i]) : w_[i];
      if (map_ == Map::M25 || map_ == Map::M27) {
        da_[i] = increment_truncated(ws, h);  // (25b) Δα = h w; (27) Δα = h Ω_{k+1}
      } else if (!increment_exact(ws, h, da_[i])) {  // (16)/(21b)/(23b)/(30): needs h|w| < 1
        throw StepFailure("map (" + map_label() + "): no real root of the increment equation (15) for body " +
                              std::to_string(i) + ": h|w| = " + std::to_string(std::abs(h) * ws.norm()) +
                              " >= 1 (incremental rotation >= pi/2); reduce h",
                          std::abs(h) * ws.norm());
      }
    }
    // 2. Drift: positions and attitudes.
    for (int i = 0; i < n_; ++i) {
      if (trans_) {
        if (map_ == Map::M27 || map_ == Map::M30) {
          v_[i] += (h / m_[i]) * F_[i];  // (27): v_{k+1} = v_k + h/m F_k
          x_[i] += h * v_[i];            //       x_{k+1} = x_k + h v_{k+1}
        } else {
          x_[i] += h * v_[i] + (h * hh / m_[i]) * F_[i];  // (23a): x_k + h v_k + h²/(2m) F_k
        }
      }
      att_[i].compose(da_[i]);  // α_{k+1} = α_k ⊕ Δα_k, R_{k+1} = R(Δα_k) R_k (spec §2.5)
    }
    // 3. One force evaluation at (x_{k+1}, R_{k+1}).
    const Vec3 Fext_old = Fext_;
    if (map_ == Map::M21)  // keep R_k for (21d)
      for (int i = 0; i < n_; ++i) w_[i] = R_[i] * w_[i];  // now the spatial R_k w_b
    for (int i = 0; i < n_; ++i) R_[i] = att_[i].R();
    forces_.evaluate(x_.data(), R_.data(), Fn_.data(), Tn_.data(), Fext_);
    // 4. Closing kicks.
    for (int i = 0; i < n_; ++i) {
      switch (map_) {
        case Map::M23:
        case Map::M25:
          if (trans_) v_[i] += (hh / m_[i]) * (F_[i] + Fn_[i]);  // (23c)
          W_[i] = w_[i] + (hh / J_[i]) * Tn_[i];                 // (23d): w + h/(2J) T_{k+1}
          break;
        case Map::M21: {
          if (trans_) v_[i] += (hh / m_[i]) * (F_[i] + Fn_[i]);  // (21c)
          // (21d): ω_{k+1} = R_{k+1}ᵀ R_k w_b + h M_{k+1}/(2J), M_{k+1} = R_{k+1}ᵀ T_{k+1}; Ω = R_{k+1} ω.
          const Vec3 om = R_[i].transpose() * w_[i] + (hh / J_[i]) * (R_[i].transpose() * Tn_[i]);
          W_[i] = R_[i] * om;
          break;
        }
        case Map::M27:
        case Map::M30: W_[i] = w_[i]; break;  // Ω_{k+1} already kicked
      }
      F_[i] = Fn_[i];
      T_[i] = Tn_[i];
    }
    // Impulse of the external forces with the map's quadrature (spec §4b).
    if (map_ == Map::M27 || map_ == Map::M30) impulse_ += h * Fext_old;
    else impulse_ += hh * (Fext_old + Fext_);
    // 5. Write back.
    for (int i = 0; i < n_; ++i) write_body(*model_, s, i, x_[i], att_[i].quaternion(), v_[i], W_[i]);
    s.t += h;
    last_q_ = s.q;
    last_v_ = s.v;
  }

 public:
  void quantity_names(std::vector<std::string>& names) const {
    names = {"impulse_x", "impulse_y", "impulse_z", "impulse_balance_x", "impulse_balance_y", "impulse_balance_z",
             "chart_switches"};
  }
  void discrete_quantities(double* out) const {
    const Vec3 bal = momentum() - P0_ - impulse_;
    for (int k = 0; k < 3; ++k) out[k] = impulse_[k], out[3 + k] = bal[k];
    int sw = 0;
    for (const auto& a : att_) sw += a.switched() ? 1 : 0;
    out[6] = sw;
  }

  // Access for tests and observers.
  const std::vector<Mat3>& rotations() const { return R_; }
  const std::vector<Vec3>& torques() const { return T_; }
  const std::vector<Vec3>& forces() const { return F_; }

 private:
  Vec3 momentum() const {
    Vec3 P = Vec3::Zero();
    for (int i = 0; i < n_; ++i) P += m_[i] * v_[i];
    return P;
  }
  std::string map_label() const {
    switch (map_) {
      case Map::M21: return "21";
      case Map::M23: return "23";
      case Map::M25: return "25";
      case Map::M27: return "27";
      case Map::M30: return "30";
    }
    return "?";
  }

  Map map_;
  Storage storage_;
  const RigidBodyModel* model_ = nullptr;
  int n_ = 0;
  bool trans_ = true, bound_ = false, started_ = false;
  RigidBodyForces forces_;
  std::vector<double> m_, J_;
  std::vector<Vec3> x_, v_, W_, F_, T_, Fn_, Tn_, w_, da_;
  std::vector<Mat3> R_;
  std::vector<Attitude> att_;
  Vec3 Fext_ = Vec3::Zero(), impulse_ = Vec3::Zero(), P0_ = Vec3::Zero();
  Eigen::VectorXd last_q_, last_v_;
};

/// The integrator plugin class shared by the map plugins (each plugin only describes itself).
class MapIntegrator final : public Integrator {
 public:
  MapIntegrator(Map map, Storage storage) : kernel_(map, storage) {}
  void bind(const System& s) override { kernel_.bind(require<RigidBodyModel>(s, name())); }
  void start(const State& s) override { kernel_.start(s); }
  void step(State& s, double h) override { kernel_.step(s, h); }
  Traits traits() const override { return kernel_.traits(); }
  void quantity_names(std::vector<std::string>& names) const override { kernel_.quantity_names(names); }
  void discrete_quantities(double* out) const override { kernel_.discrete_quantities(out); }
  const MapKernel& kernel() const { return kernel_; }

 private:
  MapKernel kernel_;
};

}  // namespace dalembert::rrp
