#pragma once
// M = L D Lᵀ (L unit lower triangular, D diagonal) of a small symmetric positive definite matrix
// whose size is known at compile time, with the triangular solves, as plain loops over fixed arrays
// (issue 32 item 1).
//
// Why not Eigen's LLT: on a fixed 5×5 matrix it runs its general code — the unblocked factorisation
// with runtime-sized inner blocks, and a solve with several right-hand sides through the blocked
// triangular-solve and GEMM kernels, packing included — a third of an RK4 step on the rolling disk
// (perf, bench_steps --profile=rk4/rolling_disk_tilted). Why not LLᵀ: its n square roots and n
// divisions form one serial chain of long-latency instructions (about 35 cycles a column); LDLᵀ, the
// square-root-free Cholesky, keeps the n divisions only (1/d_j, so that every solve multiplies).
//
// Golub & Van Loan, Matrix Computations, 4th ed., §4.1.2 (LDLᵀ), row-oriented:
//   d_j = M_jj − Σ_{k<j} L_jk² d_k,   L_ij = (M_ij − Σ_{k<j} L_ik L_jk d_k) / d_j   (i > j).
// Without pivoting, M is positive definite iff every d_j > 0.
#include <Eigen/Core>

namespace dalembert {

template <int N>
class SmallLdlt {
  static_assert(N > 0, "SmallLdlt: the size must be known at compile time");

 public:
  /// Factors M (its lower triangle is read). False when M is not positive definite to working
  /// precision (a pivot d_j ≤ 0 or NaN): the factor is then not usable.
  template <class Mat>
  bool factor(const Mat& M) {
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) {
      double ld[N];  // L_jk d_k
#pragma GCC unroll 8
      for (int k = 0; k < j; ++k) ld[k] = L_[j][k] * d_[k];
      double dj = M(j, j);
#pragma GCC unroll 8
      for (int k = 0; k < j; ++k) dj -= L_[j][k] * ld[k];
      if (!(dj > 0.0)) return false;
      d_[j] = dj;
      inv_d_[j] = 1.0 / dj;
#pragma GCC unroll 8
      for (int i = j + 1; i < N; ++i) {
        double s = M(i, j);
#pragma GCC unroll 8
        for (int k = 0; k < j; ++k) s -= L_[i][k] * ld[k];
        L_[i][j] = s * inv_d_[j];
      }
    }
    return true;
  }

  /// x ← L⁻¹x (forward substitution, unit diagonal).
  template <class X>
  void forward(X&& x) const {
#pragma GCC unroll 8
    for (int i = 1; i < N; ++i) {
      double s = x[i];
#pragma GCC unroll 8
      for (int k = 0; k < i; ++k) s -= L_[i][k] * x[k];
      x[i] = s;
    }
  }

  /// 1/d_i: x ← D⁻¹x is x_i · inverse_pivot(i).
  double inverse_pivot(int i) const { return inv_d_[i]; }

  /// x ← L⁻ᵀx (back substitution, unit diagonal).
  template <class X>
  void backward(X&& x) const {
#pragma GCC unroll 8
    for (int i = N - 2; i >= 0; --i) {
      double s = x[i];
#pragma GCC unroll 8
      for (int k = i + 1; k < N; ++k) s -= L_[k][i] * x[k];
      x[i] = s;
    }
  }

  /// x ← M⁻¹x.
  template <class X>
  void solve(X&& x) const {
    forward(x);
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) x[i] *= inv_d_[i];
    backward(x);
  }

 private:
  // Default-initialised (indeterminate until factor() writes them; zeroing them cost 7 % of the disk's
  // RK4 step). `SmallLdlt<n> f{};` value-initialises them where a compiler's -Wmaybe-uninitialized
  // cannot see that a failed factor() is never followed by a solve.
  double L_[N][N];  // strictly lower triangle used
  double d_[N], inv_d_[N];
};

}  // namespace dalembert
