#pragma once
// Attitude kinematics of a unit quaternion p = (p0, p1, p2, p3) = (cos ½φ, sin ½φ n), generic in the
// scalar (double or a dual number of any depth), for models written in L-and-A form on the
// coordinates p with the holonomic constraint |p|² − 1 = 0 (issue 29 item 1).
// Convention (Hamilton, scalar first, R body → space):
//   R(p) = [[p0²+p1²−p2²−p3², 2(p1p2−p0p3), 2(p1p3+p0p2)],
//           [2(p1p2+p0p3), p0²−p1²+p2²−p3², 2(p2p3−p0p1)],
//           [2(p1p3−p0p2), 2(p2p3+p0p1), p0²−p1²−p2²+p3²]]
// (homogeneous of degree 2: R(p) = |p|² R(p/|p|), equal to the rotation on |p| = 1), and the body
// angular velocity Ω = 2 G(p) ṗ (Ṙ = R Ω̂ on |p| = 1), with
//   G(p) = [[−p1, p0, p3, −p2], [−p2, −p3, p0, p1], [−p3, p2, −p1, p0]]
// (Schaub & Junkins, Analytical Mechanics of Space Systems, 4th ed., eq. (3.111)–(3.113), whose
// B(β) is 2Gᵀ; Shuster, J. Astronaut. Sci. 41 (1993) §5). G p = 0: the radial direction ṗ ∥ p
// turns nothing, and G Gᵀ = |p|² I₃.
#include <Eigen/Core>
#include <dalembert/math/nested_duals.hpp>

namespace dalembert::quaternion {

template <class S>
using Vec3 = Eigen::Matrix<S, 3, 1>;
template <class S>
using Mat3 = Eigen::Matrix<S, 3, 3>;
template <class S>
using Mat34 = Eigen::Matrix<S, 3, 4>;

/// R(p), p = (p[0], …, p[3]) read from any indexable vector (the header's formula).
template <class S, class P>
Mat3<S> rotation(const P& p) {
  const S w = S(p[0]), x = S(p[1]), y = S(p[2]), z = S(p[3]);
  const S two = nested::constant<S>(2.0);  // constants lifted: a dual over duals takes no double
  Mat3<S> R;
  R(0, 0) = w * w + x * x - y * y - z * z;
  R(0, 1) = two * (x * y - w * z);
  R(0, 2) = two * (x * z + w * y);
  R(1, 0) = two * (x * y + w * z);
  R(1, 1) = w * w - x * x + y * y - z * z;
  R(1, 2) = two * (y * z - w * x);
  R(2, 0) = two * (x * z - w * y);
  R(2, 1) = two * (y * z + w * x);
  R(2, 2) = w * w - x * x - y * y + z * z;
  return R;
}

/// γ = R(p)ᵀ e_z: the space vertical in body axes (the third row of R).
template <class S, class P>
Vec3<S> vertical_in_body(const P& p) {
  const S w = S(p[0]), x = S(p[1]), y = S(p[2]), z = S(p[3]);
  const S two = nested::constant<S>(2.0);
  return Vec3<S>(two * (x * z - w * y), two * (y * z + w * x), w * w - x * x - y * y + z * z);
}

/// G(p) of the header: Ω = 2 G(p) ṗ.
template <class S, class P>
Mat34<S> angular_velocity_map(const P& p) {
  const S w = S(p[0]), x = S(p[1]), y = S(p[2]), z = S(p[3]);
  Mat34<S> G;
  G << -x, w, z, -y,  //
      -y, -z, w, x,   //
      -z, y, -x, w;
  return G;
}

}  // namespace dalembert::quaternion
