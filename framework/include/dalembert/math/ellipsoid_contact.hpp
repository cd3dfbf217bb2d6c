#pragma once
// Where a convex body touches a horizontal plane (issue 29 item 1): for the ellipsoid
// xᵀD⁻¹x = 1, D = diag(a², b², c²) (a sphere of radius r when a = b = c = r), in body axes about its
// geometric centre O, resting on the plane with γ the upward vertical in body axes.
// The contact point P is where the outward normal D⁻¹P points along −γ:
//   P(γ) = −Dγ / s(γ),   s(γ) = √(γᵀDγ),
// and s is the height of O above the plane (the support function of the ellipsoid in direction −γ):
// e_z·(O − P) = γ·Dγ/s = s. A body-fixed point c (the centre of mass) is at height s(γ) + γ·c, and
// ∂s/∂γ = Dγ/s = −P, so the gradient of that height in γ is c − P (used by the kinetic energy of
// the vertical motion). Generic in the scalar (dual numbers of any depth).
#include <Eigen/Core>
#include <cmath>
#include <dalembert/math/nested_duals.hpp>

namespace dalembert::ellipsoid {

template <class S>
using Vec3 = Eigen::Matrix<S, 3, 1>;

/// The ellipsoid's semi-axes (a, b, c) along body axes 1, 2, 3.
struct Semiaxes {
  double a, b, c;
  /// D γ, D = diag(a², b², c²)
  template <class S>
  Vec3<S> scaled(const Vec3<S>& g) const {
    return Vec3<S>(nested::constant<S>(a * a) * g[0], nested::constant<S>(b * b) * g[1], nested::constant<S>(c * c) * g[2]);
  }
};

/// s(γ) = √(γᵀDγ): the height of the geometric centre above the plane.
template <class S>
S support_height(const Semiaxes& e, const Vec3<S>& gamma) {
  using std::sqrt;
  return sqrt(gamma.dot(e.scaled(gamma)));
}

/// P(γ) = −Dγ / s(γ): the contact point in body axes, from the geometric centre.
template <class S>
Vec3<S> contact_point(const Semiaxes& e, const Vec3<S>& gamma) {
  return -e.scaled(gamma) / support_height(e, gamma);
}

}  // namespace dalembert::ellipsoid
