#pragma once
// An explicit Runge–Kutta method given by its Butcher tableau, on the first-order system
// y = (q, v), y' = f(t, y). Stage buffers are sized once (resize); step() does not allocate.
#include <Eigen/Core>
#include <stdexcept>
#include <vector>

namespace dalembert {

struct ButcherTableau {
  std::vector<std::vector<double>> a;  // strictly lower triangular, s rows
  std::vector<double> b, c;
  int order = 1;
};

/// The classical fourth-order Runge–Kutta method (Kutta 1901), seed 000's RK4 baseline.
inline ButcherTableau classical_rk4() {
  return {{{}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}}, {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}, {0.0, 0.5, 0.5, 1.0}, 4};
}

/// y ← y + a·x, and y ← x: element loops for fixed sizes (see FixedNonholonomicField::evaluate on
/// why), Eigen's vectorised kernels for dynamic sizes.
template <class Y, class X>
inline void add_scaled(Y& y, double a, const X& x) {
  if constexpr (Y::SizeAtCompileTime != Eigen::Dynamic) {
    for (int i = 0; i < Y::SizeAtCompileTime; ++i) y[i] += a * x[i];
  } else {
    y.noalias() += a * x;
  }
}
template <class Y, class X>
inline void assign(Y& y, const X& x) {
  if constexpr (Y::SizeAtCompileTime != Eigen::Dynamic) {
    for (int i = 0; i < Y::SizeAtCompileTime; ++i) y[i] = x[i];
  } else {
    y = x;
  }
}

/// Explicit Runge–Kutta stepping on (q, v) of vector types VecQ, VecV: dynamic-size in the
/// integrator plugins, fixed-size when compiled together with a fixed-size model
/// (schemes/fixed_lagrangian_system.hpp). The tableau is copied into flat arrays (at most kMaxStages).
template <class VecQ = Eigen::VectorXd, class VecV = VecQ>
class ExplicitRungeKuttaT {
 public:
  static constexpr int kMaxStages = 8;
  explicit ExplicitRungeKuttaT(ButcherTableau t) : tab_(std::move(t)) {
    stages_ = static_cast<int>(tab_.b.size());
    if (stages_ < 1 || stages_ > kMaxStages || tab_.c.size() != tab_.b.size() || tab_.a.size() != tab_.b.size())
      throw std::invalid_argument("ExplicitRungeKutta: a tableau needs 1 to 8 stages and matching a, b, c");
    for (int i = 0; i < stages_; ++i) {
      b_[i] = tab_.b[i];
      c_[i] = tab_.c[i];
      for (int j = 0; j < i; ++j) a_[i][j] = j < static_cast<int>(tab_.a[i].size()) ? tab_.a[i][j] : 0.0;
    }
  }
  const ButcherTableau& tableau() const { return tab_; }

  void resize(int nq, int nv) {
    for (int i = 0; i < stages_; ++i) {
      kq_[i].setZero(nq);
      kv_[i].setZero(nv);
    }
    q_.resize(nq);
    v_.resize(nv);
  }

  /// f(t, q, v, qdot, vdot). Advances (t, q, v) by h; on exception q and v are unchanged.
  template <class F, class Q, class V>
  void step(F&& f, double t, Q& q, V& v, double h) {
    // The stage count as a compile-time constant, so that the stage loops unroll.
    switch (stages_) {
      case 1: return step_stages<1>(f, t, q, v, h);
      case 2: return step_stages<2>(f, t, q, v, h);
      case 3: return step_stages<3>(f, t, q, v, h);
      case 4: return step_stages<4>(f, t, q, v, h);
      case 5: return step_stages<5>(f, t, q, v, h);
      case 6: return step_stages<6>(f, t, q, v, h);
      case 7: return step_stages<7>(f, t, q, v, h);
      default: return step_stages<8>(f, t, q, v, h);
    }
  }

 private:
  template <int S, class F, class Q, class V>
  void step_stages(F& f, double t, Q& q, V& v, double h) {
    if constexpr (VecQ::SizeAtCompileTime != Eigen::Dynamic && VecV::SizeAtCompileTime != Eigen::Dynamic) {
      VecQ kq[S], qs;  // fixed size: stage vectors on the stack, which q and v cannot alias
      VecV kv[S], vs;
      stages<S>(f, t, q, v, h, kq, kv, qs, vs);
    } else {
      stages<S>(f, t, q, v, h, kq_, kv_, q_, v_);
    }
  }
  template <int S, class F, class Q, class V>
  void stages(F& f, double t, Q& q, V& v, double h, VecQ* kq, VecV* kv, VecQ& qs, VecV& vs) {
#pragma GCC unroll 8
    for (int i = 0; i < S; ++i) {
      assign(qs, q);
      assign(vs, v);
#pragma GCC unroll 8
      for (int j = 0; j < i; ++j) {
        const double aij = a_[i][j];
        if (aij != 0.0) {
          add_scaled(qs, h * aij, kq[j]);
          add_scaled(vs, h * aij, kv[j]);
        }
      }
      f(t + c_[i] * h, qs, vs, kq[i], kv[i]);
    }
#pragma GCC unroll 8
    for (int i = 0; i < S; ++i) {
      add_scaled(q, h * b_[i], kq[i]);
      add_scaled(v, h * b_[i], kv[i]);
    }
  }

  ButcherTableau tab_;
  int stages_ = 0;
  double a_[kMaxStages][kMaxStages] = {}, b_[kMaxStages] = {}, c_[kMaxStages] = {};
  VecQ kq_[kMaxStages], q_;
  VecV kv_[kMaxStages], v_;
};

using ExplicitRungeKutta = ExplicitRungeKuttaT<>;

}  // namespace dalembert
