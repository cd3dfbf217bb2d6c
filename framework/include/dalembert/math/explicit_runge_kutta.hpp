#pragma once
// An explicit Runge–Kutta method given by its Butcher tableau, on the first-order system
// y = (q, v), y' = f(t, y). Stage buffers are sized once (resize); step() does not allocate.
#include <Eigen/Core>
#include <vector>

namespace dalembert {

struct ButcherTableau {
  std::vector<std::vector<double>> a;  // strictly lower triangular, s rows
  std::vector<double> b, c;
  int order = 1;
};

class ExplicitRungeKutta {
 public:
  explicit ExplicitRungeKutta(ButcherTableau t) : tab_(std::move(t)) {}
  const ButcherTableau& tableau() const { return tab_; }

  void resize(int nq, int nv) {
    const std::size_t s = tab_.b.size();
    kq_.assign(s, Eigen::VectorXd::Zero(nq));
    kv_.assign(s, Eigen::VectorXd::Zero(nv));
    q_.resize(nq);
    v_.resize(nv);
  }

  /// f(t, q, v, qdot, vdot). Advances (t, q, v) by h; on exception q and v are unchanged.
  template <class F>
  void step(F&& f, double t, Eigen::VectorXd& q, Eigen::VectorXd& v, double h) {
    const std::size_t s = tab_.b.size();
    for (std::size_t i = 0; i < s; ++i) {
      q_ = q;
      v_ = v;
      for (std::size_t j = 0; j < i; ++j) {
        const double aij = tab_.a[i][j];
        if (aij != 0.0) {
          q_.noalias() += (h * aij) * kq_[j];
          v_.noalias() += (h * aij) * kv_[j];
        }
      }
      f(t + tab_.c[i] * h, q_, v_, kq_[i], kv_[i]);
    }
    for (std::size_t i = 0; i < s; ++i) {
      q.noalias() += (h * tab_.b[i]) * kq_[i];
      v.noalias() += (h * tab_.b[i]) * kv_[i];
    }
  }

 private:
  ButcherTableau tab_;
  std::vector<Eigen::VectorXd> kq_, kv_;
  Eigen::VectorXd q_, v_;
};

}  // namespace dalembert
