#pragma once
// Rescaled Rodrigues parameters (RRP) α = 2 tan(φ/2) n (spec 003 §2; paper eqs. (3)–(5)) and the
// attitude storage modes of spec §2.7 behind one interface.
//
// Order convention (spec §2.5, critical): R(a1 ⊕ a2) = R(a2) R(a1) — a2 is applied AFTER a1, as a
// LEFT (spatial) factor. The integrator update α_{k+1} = α_k ⊕ Δα_k means R_{k+1} = R(Δα_k) R_k.
#include <cmath>
#include <dalembert/math/so3.hpp>
#include <string>
#include <string_view>

namespace dalembert::rrp {

using so3::Mat3;
using so3::Vec3;
using Quat = Eigen::Quaterniond;

/// R(α) = I + 4/(4+|α|²) [S(α) + ½ S(α)²]   (eq. 4; spec §2.3) — rational, no trig.
inline Mat3 R(const Vec3& a) {
  const Mat3 S = so3::skew(a);
  return Mat3::Identity() + (4.0 / (4.0 + a.squaredNorm())) * (S + 0.5 * S * S);
}

/// a1 ⊕ a2 = 4/(4 − a1·a2) [a1 + a2 − ½ a1 × a2]   (eq. 5; spec §2.5), R(a1 ⊕ a2) = R(a2) R(a1).
inline Vec3 oplus(const Vec3& a1, const Vec3& a2) {
  return (4.0 / (4.0 - a1.dot(a2))) * (a1 + a2 - 0.5 * a1.cross(a2));
}

/// α(R) = 2 vee(R − Rᵀ)/(1 + tr R)   (spec §2.4; singular at φ = π).
inline Vec3 alpha_from_R(const Mat3& Rm) { return (2.0 / (1.0 + Rm.trace())) * so3::vee_antisym(Rm); }

/// α = tan(φ/2)/(φ/2) θ   (eq. 3; spec §2.2), series near 0: α = θ(1 + φ²/12 + φ⁴/120).
inline Vec3 alpha_from_theta(const Vec3& theta) {
  const double p = theta.norm();
  if (p < 1e-4) return (1.0 + p * p / 12.0) * theta;
  return (std::tan(0.5 * p) / (0.5 * p)) * theta;
}

/// θ = 2 atan(|α|/2) α/|α|   (spec §2.2), factor → 1 near 0.
inline Vec3 theta_from_alpha(const Vec3& a) {
  const double n = a.norm();
  if (n < 1e-4) return (1.0 - n * n / 12.0) * a;
  return (2.0 * std::atan(0.5 * n) / n) * a;
}

/// Rotation angle 2 atan(|α|/2) ∈ [0, π)   (spec §2.2, §2.7).
inline double angle(const Vec3& a) { return 2.0 * std::atan(0.5 * a.norm()); }

/// q(α) = (2, α)/√(4 + |α|²), unit quaternion with w > 0   (spec §2.4).
inline Quat quat_from_alpha(const Vec3& a) {
  const double s = 1.0 / std::sqrt(4.0 + a.squaredNorm());
  return Quat(2.0 * s, s * a.x(), s * a.y(), s * a.z());
}

/// α(q) = 2 v / w (either sign of q gives the same α; singular at w = 0, i.e. φ = π)   (spec §2.4).
inline Vec3 alpha_from_quat(const Quat& q) { return (2.0 / q.w()) * q.vec(); }

/// Tangent maps (spec §2.6): Ω = Ξ(α) α̇ (spatial), ω = Ξ(α)ᵀ α̇ (body), Ξ = 4/(4+|α|²)(I + ½S(α)),
/// δR Rᵀ = S(Ξ(α) δα).
inline Mat3 Xi(const Vec3& a) {
  return (4.0 / (4.0 + a.squaredNorm())) * (Mat3::Identity() + 0.5 * so3::skew(a));
}
/// Ξ(α)⁻¹ = I − ½S(α) + ¼ααᵀ: α̇ = Ξ⁻¹ Ω   (spec §2.6).
inline Mat3 Xi_inverse(const Vec3& a) {
  return Mat3::Identity() - 0.5 * so3::skew(a) + 0.25 * a * a.transpose();
}

// ---------------------------------------------------------------------------------------------
// Increments of the maps (spec §3).

/// Map (23b)/(16): Δα = 2h/(1 + √(1 − h²|w|²)) w, valid for h|w| < 1 (increment angle arcsin(h|w|)).
/// Returns false (Δα untouched) when h|w| ≥ 1.
inline bool increment_exact(const Vec3& w, double h, Vec3& dalpha) {
  const double s2 = h * h * w.squaredNorm();
  if (!(s2 < 1.0)) return false;
  dalpha = (2.0 * h / (1.0 + std::sqrt(1.0 - s2))) * w;
  return true;
}
/// Map (25b): Δα = h w (increment angle 2 atan(h|w|/2), no restriction).
inline Vec3 increment_truncated(const Vec3& w, double h) { return h * w; }

// ---------------------------------------------------------------------------------------------
// Attitude storage (spec §2.7): one interface compose(Δα), R(), angle(), three modes.

enum class Storage { Alpha, Quaternion, Chart };

inline Storage storage_from_string(std::string_view s) {
  if (s == "alpha") return Storage::Alpha;
  if (s == "quaternion") return Storage::Quaternion;
  return Storage::Chart;  // "chart"
}
inline const char* to_string(Storage s) {
  switch (s) {
    case Storage::Alpha: return "alpha";
    case Storage::Quaternion: return "quaternion";
    case Storage::Chart: return "chart";
  }
  return "?";
}

class Attitude {
 public:
  explicit Attitude(Storage mode = Storage::Alpha) : mode_(mode) {}

  Storage mode() const { return mode_; }
  /// True once an α-mode body has switched to the chart near φ = π.
  bool switched() const { return switched_; }

  /// Initialise from a unit quaternion (the state's attitude storage).
  void set(const Quat& q_in) {
    Quat q = q_in.normalized();
    last_out_ = q;
    switched_ = false;
    current_ = mode_;
    switch (mode_) {
      case Storage::Alpha:
        if (std::abs(q.w()) > 1e-8) {
          alpha_ = alpha_from_quat(q);
        } else {  // at φ ≈ π α does not exist: start in the chart (spec §2.7 guard)
          current_ = Storage::Chart;
          switched_ = true;
          ref_ = q;
          Rref_ = q.toRotationMatrix();
          alpha_.setZero();
        }
        break;
      case Storage::Quaternion: q_ = q; break;
      case Storage::Chart:
        ref_ = q;
        Rref_ = q.toRotationMatrix();
        alpha_.setZero();
        break;
    }
    update_R();
  }

  /// R ← R(Δα) R, i.e. α ← α ⊕ Δα (spatial increment; spec §2.5, §3.3 step 5).
  void compose(const Vec3& da) {
    switch (current_) {
      case Storage::Alpha: {
        const double d = 4.0 - alpha_.dot(da);
        // Guard of spec §2.7 mode 1: the composed rotation has angle ≈ π; switch to the chart.
        if (std::abs(d) < 1e-12 * (4.0 + alpha_.norm() * da.norm())) {
          current_ = Storage::Chart;
          switched_ = true;
          ref_ = quat_from_alpha(alpha_);
          Rref_ = R_;
          alpha_.setZero();
          compose(da);
          return;
        }
        alpha_ = oplus(alpha_, da);
        break;
      }
      case Storage::Quaternion:
        q_ = (quat_from_alpha(da) * q_).normalized();  // Hamilton product, left multiplication
        break;
      case Storage::Chart:
        alpha_ = oplus(alpha_, da);
        if (alpha_.squaredNorm() > 4.0) {  // local angle > π/2: re-anchor
          Rref_ = rrp::R(alpha_) * Rref_;
          ref_ = (quat_from_alpha(alpha_) * ref_).normalized();
          alpha_.setZero();
        }
        break;
    }
    update_R();
  }

  const Mat3& R() const { return R_; }
  /// Rotation angle in [0, π] (robust).
  double angle() const {
    if (current_ == Storage::Alpha) return rrp::angle(alpha_);
    return so3::angle(R_);
  }
  /// The global α (only meaningful in α mode away from π); the local α in the chart.
  const Vec3& alpha() const { return alpha_; }

  /// Unit quaternion of R, with its sign kept continuous along the run (so that trajectories of
  /// the state are continuous even when α passes through φ = π and flips).
  Quat quaternion() {
    Quat q;
    switch (current_) {
      case Storage::Alpha: q = quat_from_alpha(alpha_); break;
      case Storage::Quaternion: q = q_; break;
      case Storage::Chart: q = (quat_from_alpha(alpha_) * ref_).normalized(); break;
    }
    if (q.coeffs().dot(last_out_.coeffs()) < 0.0) q.coeffs() = -q.coeffs();
    last_out_ = q;
    return q;
  }

 private:
  void update_R() {
    switch (current_) {
      case Storage::Alpha: R_ = rrp::R(alpha_); break;  // rebuilt from α: ‖R ρ‖ = 1 to 1 ulp
      case Storage::Quaternion: R_ = q_.toRotationMatrix(); break;
      case Storage::Chart: R_ = rrp::R(alpha_) * Rref_; break;
    }
  }

  Storage mode_, current_ = Storage::Alpha;
  bool switched_ = false;
  Vec3 alpha_ = Vec3::Zero();
  Quat q_ = Quat::Identity(), ref_ = Quat::Identity(), last_out_ = Quat::Identity();
  Mat3 Rref_ = Mat3::Identity(), R_ = Mat3::Identity();
};

}  // namespace dalembert::rrp
