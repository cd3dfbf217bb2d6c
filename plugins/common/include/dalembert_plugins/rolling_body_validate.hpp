#pragma once
// The physical checks of a rolling body's parameters (rolling_body.hpp), shared by `chaplygin_ball`
// and `rattleback`: each failure is an InvalidBody naming the model's field (a, b, c — the
// semi-axes —, m, gravity, inertia, offset, mu) and the value, so that a plugin can point its
// InputError at its own parameter.
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <dalembert_plugins/rolling_body.hpp>

namespace dalembert::rolling {

/// An unphysical value of the model's field `field`; what() reads "parameter FIELD ...".
struct InvalidBody : std::invalid_argument {
  InvalidBody(std::string f, const std::string& what) : std::invalid_argument(what), field(std::move(f)) {}
  std::string field;
};

namespace detail {
[[noreturn]] inline void refuse(const std::string& name, const std::string& why) {
  throw InvalidBody(name, "parameter " + name + " " + why);
}
inline std::string str(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}
}  // namespace detail

/// Refuses a non-positive (or non-finite) semi-axis or mass, a negative gravity, an inertia tensor
/// that is not symmetric positive definite, a centre of mass outside the body (cᵀD⁻¹c ≥ 1: a convex
/// body's centre of mass lies inside it) and a non-positive regulariser μ, naming the value.
inline void validate(const RollingBodyModel& b) {
  const double axes[3] = {b.shape.a, b.shape.b, b.shape.c};
  const char* names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i)
    if (!(std::isfinite(axes[i]) && axes[i] > 0.0))
      detail::refuse(names[i], "is a semi-axis of the body and must be positive, got " + detail::str(axes[i]));
  if (!(std::isfinite(b.m) && b.m > 0.0)) detail::refuse("m", "is the mass and must be positive, got " + detail::str(b.m));
  if (!(std::isfinite(b.gravity) && b.gravity >= 0.0))
    detail::refuse("gravity", "must be finite and non-negative, got " + detail::str(b.gravity));
  if (!b.inertia.allFinite() || (b.inertia - b.inertia.transpose()).cwiseAbs().maxCoeff() > 0.0)
    detail::refuse("inertia", "must be a finite symmetric tensor");
  const double lmin = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(b.inertia, Eigen::EigenvaluesOnly).eigenvalues()[0];
  if (!(lmin > 0.0))
    detail::refuse("inertia", "(about the centre of mass) must be positive definite; its smallest eigenvalue is " +
                                  detail::str(lmin));
  // principal moments of a rigid body obey the triangle inequality: I₁ + I₂ ≥ I₃ (sorted), equality
  // only for a flat body (Landau & Lifshitz, Mechanics §32)
  const Eigen::Vector3d l = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(b.inertia, Eigen::EigenvaluesOnly).eigenvalues();
  if (l[0] + l[1] < l[2] * (1.0 - 1e-12))
    detail::refuse("inertia", "has principal moments " + detail::str(l[0]) + ", " + detail::str(l[1]) + ", " +
                                  detail::str(l[2]) + ": the largest exceeds the sum of the others, which no rigid body has");
  const Eigen::Vector3d& c = b.offset;
  const double inside = c[0] * c[0] / (axes[0] * axes[0]) + c[1] * c[1] / (axes[1] * axes[1]) + c[2] * c[2] / (axes[2] * axes[2]);
  if (!c.allFinite() || !(inside < 1.0))
    detail::refuse("offset", "puts the centre of mass outside the body: c^T D^-1 c = " + detail::str(inside) + " >= 1");
  if (!(std::isfinite(b.mu) && b.mu > 0.0)) detail::refuse("mu", "is the radial regulariser and must be positive, got " + detail::str(b.mu));
}

/// The model of a body with these values, μ its largest moment scale tr I + m max(a, b, c)²
/// (rolling_body.hpp), validated: InvalidBody names a bad value.
inline RollingBodyModel rolling_body(const ellipsoid::Semiaxes& shape, double m, double gravity,
                                     const Eigen::Matrix3d& inertia, const Eigen::Vector3d& offset) {
  RollingBodyModel b;
  b.shape = shape;
  b.m = m;
  b.gravity = gravity;
  b.inertia = inertia;
  b.offset = offset;
  const double r = std::max({shape.a, shape.b, shape.c});
  b.mu = inertia.trace() + m * r * r;
  validate(b);
  return b;
}

}  // namespace dalembert::rolling
