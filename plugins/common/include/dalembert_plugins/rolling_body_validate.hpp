#pragma once
// The physical checks of a rolling body's parameters (rolling_body.hpp), shared by `chaplygin_ball`
// and `rattleback`: each failure is a std::invalid_argument whose message begins "parameter NAME "
// with NAME one of a, b, c (the semi-axes), m, gravity, inertia, offset, mu, so that a plugin can
// point its InputError at its own parameter.
#include <Eigen/Eigenvalues>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <dalembert_plugins/rolling_body.hpp>

namespace dalembert::rolling {

namespace detail {
[[noreturn]] inline void refuse(const std::string& name, const std::string& why) {
  throw std::invalid_argument("parameter " + name + " " + why);
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
  const Eigen::Vector3d& c = b.offset;
  const double inside = c[0] * c[0] / (axes[0] * axes[0]) + c[1] * c[1] / (axes[1] * axes[1]) + c[2] * c[2] / (axes[2] * axes[2]);
  if (!c.allFinite() || !(inside < 1.0))
    detail::refuse("offset", "puts the centre of mass outside the body: c^T D^-1 c = " + detail::str(inside) + " >= 1");
  if (!(std::isfinite(b.mu) && b.mu > 0.0)) detail::refuse("mu", "is the radial regulariser and must be positive, got " + detail::str(b.mu));
}

}  // namespace dalembert::rolling
