// The Whipple bicycle's listed coordinates (issue 28 item 6): its model lists the coordinates M(q)
// depends on (mass_coordinates: yaw, roll, pitch, steer) and those V(q) and g(q) depend on
// (potential_coordinates: roll, pitch, steer), and the framework differentiates them along those
// only (math/forward_derivatives.hpp, "... through the coordinates they depend on"). The reference
// is the full n-direction AD pass of the same functions, which sees every coordinate: the listed
// derivatives must equal it (to round-off: the same arithmetic on fewer lanes), and the full pass
// must find no dependence on an unlisted coordinate, at random configurations and rates.
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/math/forward_derivatives.hpp>
#include <numbers>
#include <random>

#include "whipple_bicycle/whipple_model.hpp"

namespace {

using namespace dalembert;
using Model = whipple::WhippleBicycleModel;
using Vec8 = Eigen::Matrix<double, 8, 1>;
using Mat8 = Eigen::Matrix<double, 8, 8>;
constexpr double kPi = std::numbers::pi;

struct Sample {
  Vec8 q, v;
};

/// A configuration on g = 0 (pitch from roll and steer) and arbitrary rates.
Sample random_sample(const Model& b, std::mt19937& rng) {
  std::uniform_real_distribution<double> roll(-0.7, 0.7), steer(-1.2, 1.2), any(-kPi, kPi), pos(-50.0, 50.0),
      rate(-3.0, 3.0);
  Sample s;
  s.q << pos(rng), pos(rng), any(rng), roll(rng), 0.0, steer(rng), 40.0 * any(rng), 40.0 * any(rng);
  s.q[Model::kPitch] = b.pitch_for(s.q[Model::kRoll], s.q[Model::kSteer]);
  for (int i = 0; i < 8; ++i) s.v[i] = rate(rng);
  return s;
}

/// ‖x − y‖∞ / (1 + ‖y‖∞): the same arithmetic on fewer AD lanes agrees to a few ulps of the size.
template <class X, class Y>
double deviation(const X& x, const Y& y) {
  return (x - y).template lpNorm<Eigen::Infinity>() / (1.0 + y.template lpNorm<Eigen::Infinity>());
}

constexpr double kRoundOff = 1e-14;

}  // namespace

TEST_CASE("whipple_bicycle: M's derivatives along mass_coordinates equal the full AD pass") {
  const Model b;
  std::mt19937 rng(20261128);
  for (int trial = 0; trial < 20; ++trial) {
    const Sample s = random_sample(b, rng);
    REQUIRE(ad::unlisted_mass_dependence<8>(b, s.q, Model::mass_coordinates) == -1);
    Vec8 full, listed;
    ad::kinetic_gradient<8>(b, s.q, s.v, full);
    ad::kinetic_gradient_listed<8>(b, Model::mass_coordinates, s.q, s.v, listed);
    CHECK(deviation(listed, full) < kRoundOff);
    ad::coriolis<8>(b, s.q, s.v, full);
    ad::coriolis_listed<8>(b, Model::mass_coordinates, s.q, s.v, listed);
    CHECK(deviation(listed, full) < kRoundOff);
    Mat8 M_pass, M_model;  // the compiled field's one pass: M bit for bit the model's, c the same
    Vec8 c_pass;
    ad::mass_and_coriolis_listed<8>(b, Model::mass_coordinates, s.q, s.v, M_pass, c_pass);
    b.mass(s.q, M_model);
    CHECK(M_pass == M_model);
    CHECK(c_pass == listed);
    Mat8 D_full, D_listed;
    ad::mass_derivative<8>(b, s.q, s.v, D_full);
    ad::mass_derivative_listed<8>(b, Model::mass_coordinates, s.q, s.v, D_listed);
    CHECK(deviation(D_listed, D_full) < kRoundOff);
  }
}

TEST_CASE("whipple_bicycle: V's and g's derivatives along potential_coordinates equal the full AD pass") {
  const Model b;
  std::mt19937 rng(1128);
  for (int trial = 0; trial < 20; ++trial) {
    const Sample s = random_sample(b, rng);
    REQUIRE(ad::unlisted_potential_dependence<8, 1>(b, 1, s.q, Model::potential_coordinates) == -1);
    Vec8 full, listed;
    ad::potential_gradient<8>(b, s.q, full);
    ad::potential_gradient_listed<8>(b, Model::potential_coordinates, s.q, listed);
    CHECK(deviation(listed, full) < kRoundOff);
    Mat8 V_full, V_listed;  // ∇²V: the listed passes give the full pass's entries bit for bit
    ad::potential_hessian<8>(b, s.q, V_full);
    ad::potential_hessian_listed<8>(b, Model::potential_coordinates, s.q, V_listed);
    CHECK(V_listed == V_full);
    Eigen::Matrix<double, 1, 8> J_full, J_listed, H_full, H_listed;
    ad::holonomic_jacobian<8, 1>(b, 1, s.q, J_full);
    ad::holonomic_jacobian_listed<8, 1>(b, 1, Model::potential_coordinates, s.q, J_listed);
    CHECK(deviation(J_listed, J_full) < kRoundOff);
    Eigen::Matrix<double, 1, 1> c_full, c_listed;
    ad::holonomic_curvature<8, 1>(b, 1, s.q, s.v, c_full);
    ad::holonomic_curvature_listed<8, 1>(b, 1, Model::potential_coordinates, s.q, s.v, c_listed);
    CHECK(deviation(c_listed, c_full) < kRoundOff);
    ad::holonomic_hessian_times<8, 1>(b, 1, s.q, s.v, H_full);
    ad::holonomic_hessian_times_listed<8, 1>(b, 1, Model::potential_coordinates, s.q, s.v, H_listed);
    CHECK(deviation(H_listed, H_full) < kRoundOff);
    // and the curvature is the second derivative of g along v (vᵀ(∇²g v)), an identity of the two passes
    CHECK(std::abs(c_listed[0] - H_listed.dot(s.v.transpose())) < kRoundOff * (1.0 + std::abs(c_listed[0])));
  }
}

TEST_CASE("a listing that leaves out a coordinate V or g depends on is found") {
  // The bicycle's V and g depend on roll (3), pitch (4) and steer (5): drop steer.
  const Model b;
  std::mt19937 rng(7);
  const Sample s = random_sample(b, rng);
  constexpr std::array<int, 2> without_steer{Model::kRoll, Model::kPitch};
  CHECK(ad::unlisted_potential_dependence<8, 1>(b, 1, s.q, without_steer) == Model::kSteer);
  constexpr std::array<int, 3> without_pitch{Model::kYaw, Model::kRoll, Model::kSteer};
  CHECK(ad::unlisted_mass_dependence<8>(b, s.q, without_pitch) == Model::kPitch);
}
