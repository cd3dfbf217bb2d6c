#pragma once
// The initial guess of an implicit one-step solve from the increments of the last steps: with the
// last m increments Δ_k = q_{k+1} − q_k of one step size (m ≤ kMaxOrder), the polynomial through
// them extrapolated one step,
//   Δ_{k+1} ≈ Σ_{j=1}^{m} (−1)^{j+1} C(m, j) Δ_{k+1−j}        (backward differences: ∇^m Δ_{k+1} = 0),
// whose error is the m-th backward difference, O(h^{m+1}) on a smooth motion (m = 2: 2Δ_k − Δ_{k−1},
// error O(h³)). On an oscillation e^{iωt} the error factor is |e^{iωh} − 1|^m, which shrinks with m
// while ωh < π/3. Used where a Newton solve keeps its Jacobian across steps (chord iterations
// converge linearly, so each order of the guess saves iterations): dla/mla on M(q) (issue 28).
// Storage is allocated in resize(); push() and guess() do not allocate.
#include <Eigen/Core>
#include <algorithm>
#include <array>

namespace dalembert {

template <class VecT = Eigen::VectorXd>
class IncrementExtrapolation {
 public:
  static constexpr int kMaxOrder = 6;

  void resize(Eigen::Index n, int order) {
    order_ = std::clamp(order, 0, kMaxOrder);
    for (auto& d : increments_) d.resize(n);
    reset();
  }
  /// Forget the increments (a new state, another step size).
  void reset() { count_ = 0, newest_ = 0; }
  /// How many increments the next guess will use (0: no guess).
  int available() const { return std::min(count_, order_); }

  /// Record Δ_k = q_{k+1} − q_k.
  template <class D>
  void push(const D& delta) {
    newest_ = (newest_ + 1) % kMaxOrder;
    increments_[newest_] = delta;
    count_ = std::min(count_ + 1, kMaxOrder);
  }

  /// u = the extrapolated Δ_{k+1}; requires available() > 0.
  template <class U>
  void guess(U& u) const {
    const int m = available();
    double binomial = 1.0;  // C(m, j), j = 1..m
    u.setZero();
    for (int j = 1; j <= m; ++j) {
      binomial = binomial * (m - j + 1) / j;
      const double sign = (j % 2 == 1) ? 1.0 : -1.0;
      u.noalias() += (sign * binomial) * increments_[(newest_ - (j - 1) + kMaxOrder) % kMaxOrder];
    }
  }

 private:
  std::array<VecT, kMaxOrder> increments_;
  int order_ = 0, count_ = 0, newest_ = 0;
};

}  // namespace dalembert
