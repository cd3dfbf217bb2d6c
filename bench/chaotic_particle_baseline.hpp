#pragma once
// Hand-written baselines on the chaotic nonholonomic particle (spec 000 §2.2): fixed-size Eigen,
// no virtual call, no plugin, every formula inlined — the practical limit for each scheme.
#include <Eigen/Core>
#include <array>

namespace dalembert::bench {

using Vec5 = Eigen::Matrix<double, 5, 1>;

/// q̇ = v, v̇ = −∇V + λAᵀ with the closed-form multiplier of spec 000 §2.2.
struct ChaoticParticleRhs {
  static void eval(const double* q, const double* v, double* qd, double* vd) {
    const double x = q[0], y1 = q[1], y2 = q[2], z1 = q[3], z2 = q[4];
    const double gy1 = y1 * (1 + z1 * z1), gy2 = y2 * (1 + z2 * z2);
    const double gz1 = z1 * (1 + z2 * z2 + y1 * y1), gz2 = z2 * (1 + z1 * z1 + y2 * y2);
    const double lambda = (x + y1 * gz1 + y2 * gz2 - v[1] * v[3] - v[2] * v[4]) / (1 + y1 * y1 + y2 * y2);
    for (int i = 0; i < 5; ++i) qd[i] = v[i];
    vd[0] = -x + lambda;
    vd[1] = -gy1;
    vd[2] = -gy2;
    vd[3] = -gz1 + lambda * y1;
    vd[4] = -gz2 + lambda * y2;
  }
  // Boost.Odeint signature on y = (q, v).
  void operator()(const std::array<double, 10>& y, std::array<double, 10>& dy, double) const {
    eval(y.data(), y.data() + 5, dy.data(), dy.data() + 5);
  }
};

/// Classical RK4 on y = (q, v), fixed size, inlined.
struct HandRK4 {
  Vec5 q, v;
  void step(double h) {
    Vec5 kq[4], kv[4], qs, vs;
    ChaoticParticleRhs::eval(q.data(), v.data(), kq[0].data(), kv[0].data());
    qs = q + (0.5 * h) * kq[0];
    vs = v + (0.5 * h) * kv[0];
    ChaoticParticleRhs::eval(qs.data(), vs.data(), kq[1].data(), kv[1].data());
    qs = q + (0.5 * h) * kq[1];
    vs = v + (0.5 * h) * kv[1];
    ChaoticParticleRhs::eval(qs.data(), vs.data(), kq[2].data(), kv[2].data());
    qs = q + h * kq[2];
    vs = v + h * kv[2];
    ChaoticParticleRhs::eval(qs.data(), vs.data(), kq[3].data(), kv[3].data());
    q += (h / 6) * (kq[0] + 2 * kq[1] + 2 * kq[2] + kq[3]);
    v += (h / 6) * (kv[0] + 2 * kv[1] + 2 * kv[2] + kv[3]);
  }
};

/// DLA = F^{0,0,α} with Φ from (14), closed form of spec 000 §3.2 ("Chaotic particle"), α = ½ by default.
struct HandDLA {
  Vec5 q, v;
  double alpha = 0.5;
  static Vec5 accel(const Vec5& q) {  // a = −∇V
    Vec5 a;
    a[0] = -q[0];
    a[1] = -q[1] * (1 + q[3] * q[3]);
    a[2] = -q[2] * (1 + q[4] * q[4]);
    a[3] = -q[3] * (1 + q[4] * q[4] + q[1] * q[1]);
    a[4] = -q[4] * (1 + q[3] * q[3] + q[2] * q[2]);
    return a;
  }
  void step(double h) {
    const double hh = 0.5 * h * h;
    const Vec5 d0 = h * v + hh * accel(q);
    const double yb1 = q[1] + alpha * d0[1], yb2 = q[2] + alpha * d0[2];
    const double lambda = -(d0[0] + yb1 * d0[3] + yb2 * d0[4]) / (hh * (1 + yb1 * q[1] + yb2 * q[2]));
    Vec5 q1 = q + d0;
    q1[0] += hh * lambda;
    q1[3] += hh * lambda * q[1];
    q1[4] += hh * lambda * q[2];
    const Vec5 w = (q1 - q) / h + (0.5 * h) * accel(q1);
    const double A1 = q1[1], A2 = q1[2];
    const double s = (w[0] + A1 * w[3] + A2 * w[4]) / (1 + A1 * A1 + A2 * A2);
    v = w;
    v[0] -= s;
    v[3] -= s * A1;
    v[4] -= s * A2;
    q = q1;
  }
};

}  // namespace dalembert::bench
