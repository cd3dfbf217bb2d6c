// RKMK4 on unit-quaternion coordinates: the scheme is in rkmk4_quaternions.hpp.
#include "rkmk4_quaternions.hpp"

#include <algorithm>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/unit_quaternions.hpp>
#include <dalembert/math/quaternion_kinematics.hpp>
#include <dalembert/math/so3_group.hpp>
#include <limits>
#include <string>

namespace dalembert::rkmk4 {

namespace {

constexpr double kC[4] = {0.0, 0.5, 0.5, 1.0};
constexpr double kB[4] = {1.0 / 6, 2.0 / 6, 2.0 / 6, 1.0 / 6};

Eigen::Vector3d body_rate(ConstVecRef p, ConstVecRef pdot) { return 2.0 * quaternion::angular_velocity_map<double>(p) * pdot; }

}  // namespace

// The declared quaternions must lie inside q, apart from each other.
void OnUnitQuaternions::read_offsets(const System& s) {
  offsets_ = require<UnitQuaternionCoordinates>(s, name()).quaternion_offsets();
  const int n = model_->dof();
  std::vector<bool> taken(static_cast<std::size_t>(n), false);
  for (int o : offsets_) {
    if (o < 0 || o + 4 > n)
      throw Error("'" + name() + "': the system declares a unit quaternion at q[" + std::to_string(o) + ".." +
                  std::to_string(o + 3) + "], outside its " + std::to_string(n) + " coordinates");
    for (int k = o; k < o + 4; ++k) {
      if (taken[static_cast<std::size_t>(k)])
        throw Error("'" + name() + "': the system declares two unit quaternions sharing q[" + std::to_string(k) + "]");
      taken[static_cast<std::size_t>(k)] = true;
    }
  }
  euclidean_.clear();
  for (int k = 0; k < n; ++k)
    if (!taken[static_cast<std::size_t>(k)]) euclidean_.push_back(k);
}

void OnUnitQuaternions::bind(const System& s) {
  model_ = &require<ConstrainedLagrangian>(s, name(), Treats::HolonomicConstraints | Treats::AffineConstraints);
  read_offsets(s);
  field_.bind(*model_);
  const int n = model_->dof(), m = static_cast<int>(offsets_.size());
  for (Vec* v : {&qs_, &vs_, &qdot_, &vdot_}) v->resize(n);
  edot_.resize(n, 4);
  eddot_.resize(n, 4);
  omega0_.resize(3, m);
  for (int i = 0; i < 4; ++i) {
    K_[i].resize(3, m);
    W_[i].resize(3, m);
  }
}

// Stage i: its state from the earlier stages (header), the field there, K_i and W_i.
void OnUnitQuaternions::stage(const State& s, int i, double h) {
  const double a = i == 0 ? 0.0 : kC[i] * h;
  for (int e : euclidean_) {
    qs_[e] = i == 0 ? s.q[e] : s.q[e] + a * edot_(e, i - 1);
    vs_[e] = i == 0 ? s.v[e] : s.v[e] + a * eddot_(e, i - 1);
  }
  for (std::size_t j = 0; j < offsets_.size(); ++j) {
    const int o = offsets_[j], c = static_cast<int>(j);
    const Eigen::Vector3d u = i == 0 ? Eigen::Vector3d::Zero() : Eigen::Vector3d(a * K_[i - 1].col(c));
    const Eigen::Vector3d omega = i == 0 ? Eigen::Vector3d(omega0_.col(c)) : Eigen::Vector3d(omega0_.col(c) + a * W_[i - 1].col(c));
    qs_.segment<4>(o) = s.q.segment<4>(o);
    SO3::compose_at(Retraction::Exp, u, qs_.segment<4>(o));
    vs_.segment<4>(o).noalias() = 0.5 * quaternion::angular_velocity_map<double>(qs_.segment<4>(o)).transpose() * omega;
    K_[i].col(c) = SO3::dexp_inv(Eigen::Vector3d(-u)) * omega;
  }
  field_.evaluate(s.t + kC[i] * h, qs_, vs_, qdot_, vdot_);
  edot_.col(i) = qdot_;
  eddot_.col(i) = vdot_;
  for (std::size_t j = 0; j < offsets_.size(); ++j) {
    const int o = offsets_[j];
    W_[i].col(static_cast<int>(j)) = body_rate(qs_.segment<4>(o), vdot_.segment<4>(o));
  }
}

void OnUnitQuaternions::step(State& s, double h) {
  for (std::size_t j = 0; j < offsets_.size(); ++j)
    omega0_.col(static_cast<int>(j)) = body_rate(s.q.segment<4>(offsets_[j]), s.v.segment<4>(offsets_[j]));
  for (int i = 0; i < 4; ++i) stage(s, i, h);
  qs_ = s.q;  // the new state is built in the stage buffers: s changes only when it is finite
  vs_ = s.v;
  for (int e : euclidean_) {
    double dq = 0.0, dv = 0.0;
    for (int i = 0; i < 4; ++i) {
      dq += kB[i] * edot_(e, i);
      dv += kB[i] * eddot_(e, i);
    }
    qs_[e] += h * dq;
    vs_[e] += h * dv;
  }
  for (std::size_t j = 0; j < offsets_.size(); ++j) {
    const int o = offsets_[j], c = static_cast<int>(j);
    Eigen::Vector3d u = Eigen::Vector3d::Zero(), omega = omega0_.col(c);
    for (int i = 0; i < 4; ++i) {
      u += (h * kB[i]) * K_[i].col(c);
      omega += (h * kB[i]) * W_[i].col(c);
    }
    SO3::compose_at(Retraction::Exp, u, qs_.segment<4>(o));
    vs_.segment<4>(o).noalias() = 0.5 * quaternion::angular_velocity_map<double>(qs_.segment<4>(o)).transpose() * omega;
  }
  if (!qs_.allFinite() || !vs_.allFinite())
    throw StepFailure("RKMK4 produced a non-finite state", std::numeric_limits<double>::infinity());
  s.q = qs_;
  s.v = vs_;
}

}  // namespace dalembert::rkmk4
