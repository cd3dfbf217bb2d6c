#pragma once
// The continuous nonholonomic vector field (spec 000 §2.0) of a fixed-size model, every call
// inlined:  q̇ = v,  M v̇ = −∇V + Aᵀλ,  λ = −C⁻¹[A a + (∂A/∂q)[v]v],  a = −M⁻¹∇V,  C = A M⁻¹Aᵀ.
// The dynamic-size NonholonomicVectorField (core/nonholonomic_field.hpp) evaluates the same formula
// for any plugin system through its virtual interface; this one orders it so that a model's
// closed-form products (apply_constraint, add_constraint_force) skip the structural zeros of A.
// tests/framework/test_compiled_schemes.cpp checks that the two agree to round-off.
// A configuration-dependent M(q) (issue 28 item 6; issue 32 item 1): the same field with the
// velocity terms, M v̇ = −∇V − c(q,v) + Aᵀλ, c = Ṁv − ½∂_q(vᵀMv) (ad::coriolis, one AD pass, whose
// values are M), and M(q) factorised at every evaluation (SmallLdlt: unrolled, no heap):
//   a = M⁻¹(−∇V − c),  B = M⁻¹Aᵀ,  λ = −(A B)⁻¹[A a + (∂A/∂q)[v]v],  v̇ = a + Bλ.
#include <Eigen/Cholesky>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/model_access.hpp>
#include <dalembert/math/small_ldlt.hpp>

namespace dalembert {

template <class Model>
class FixedNonholonomicField {
 public:
  using Access = FixedAccess<Model>;
  using VecN = typename Access::VecN;
  using VecR = typename Access::VecR;
  using MatN = typename Access::MatN;
  using MatRN = typename Access::MatRN;
  using MatNR = typename Access::MatNR;
  using MatR = typename Access::MatR;
  static constexpr int R = Access::R;

  void bind(const Model& model) {
    access_.bind(model);
    if constexpr (Access::configuration_mass) {
      // M(q) is factorised where the field is evaluated (evaluate_configuration_mass)
    } else if constexpr (!Access::unit_mass) {
      MatN M;
      access_.mass(VecN::Zero(), M);
      Eigen::LLT<MatN> llt(M);
      if (llt.info() != Eigen::Success) throw Error("FixedNonholonomicField: the mass matrix is not positive definite");
      Minv_ = llt.solve(MatN::Identity());
    }
  }

  /// y' = (q̇, v̇) at (t, q, v); λ(q, v) in multiplier().
  ///
  /// Vectors are copied and scaled element by element (loops the compiler unrolls): on these tiny,
  /// often odd sizes, Eigen's packet stores followed by the model's scalar reads and writes stall on
  /// store forwarding; measured 1.4× slower per RK4 step on the chaotic particle (bench/README.md).
  void evaluate(double t, const VecN& q, const VecN& v, VecN& qdot, VecN& vdot) {
    if constexpr (Access::configuration_mass) return evaluate_configuration_mass(t, q, v, qdot, vdot);
    constexpr int N = Access::N;
    VecN a;  // a = −M⁻¹∇V
    access_.potential_gradient(q, a);
    if constexpr (Access::unit_mass) {
      for (int i = 0; i < N; ++i) a[i] = -a[i];
    } else {
      a = -(Minv_ * a);
    }
    if constexpr (R > 0) {
      MatNR B;  // B = M⁻¹Aᵀ
      MatR C;   // C = A B
      VecR rhs, Aa;  // A a + (∂A/∂q)[v]v
      access_.curvature(q, v, rhs);
      if constexpr (Access::constraint_products) {  // A only through the model's closed-form products
        for (int b = 0; b < R; ++b) {
          for (int i = 0; i < N; ++i) B(i, b) = 0.0;
          access_.add_constraint_force(q, VecR::Unit(b), B.col(b));
          if constexpr (!Access::unit_mass) B.col(b) = Minv_ * B.col(b).eval();
          access_.apply_constraint(q, B.col(b), C.col(b));
        }
        access_.apply_constraint(q, a, Aa);
      } else {
        MatRN A;
        access_.constraint_matrix(q, A);
        if constexpr (Access::unit_mass)
          B = A.transpose();
        else
          B.noalias() = Minv_ * A.transpose();
        C.noalias() = A * B;
        Aa.noalias() = A * a;
      }
      for (int b = 0; b < R; ++b) rhs[b] += Aa[b];
      const VecR lambda = constraint_multiplier(C, rhs);
      if constexpr (Access::constraint_products && Access::unit_mass)
        access_.add_constraint_force(q, lambda, a);  // v̇ = a + Aᵀλ
      else
        a.noalias() += B * lambda;  // v̇ = a + M⁻¹Aᵀλ
      lambda_ = lambda;
    }
    for (int i = 0; i < N; ++i) {
      vdot[i] = a[i];
      qdot[i] = v[i];
    }
  }
  const VecR& multiplier() const { return lambda_; }

  /// The field with M(q) (the header's formula), every matrix fixed-size. With M = LDLᵀ
  /// (SmallLdlt), W = L⁻¹Aᵀ and y = L⁻¹f:  C = A M⁻¹Aᵀ = WᵀD⁻¹W,  A a = WᵀD⁻¹y,
  /// v̇ = M⁻¹(f + Aᵀλ) = L⁻ᵀD⁻¹(y + Wλ) — r + 1 forward solves and one back solve.
  void evaluate_configuration_mass(double, const VecN& q, const VecN& v, VecN& qdot, VecN& vdot) {
    constexpr int N = Access::N;
    VecN f, c, g;  // f = −∇V − c(q, v)
    MatN M;
    access_.mass_and_coriolis(q, v, M, c);
    access_.potential_gradient(q, g);
    for (int i = 0; i < N; ++i) f[i] = -g[i] - c[i];
    SmallLdlt<N> mass_factor;
    if (!mass_factor.factor(M)) throw StepFailure("the mass matrix M(q) is not positive definite", 0.0);
    mass_factor.forward(f);  // y = L⁻¹f
    if constexpr (R > 0) {
      MatRN A;
      access_.constraint_matrix(q, A);
      MatNR W, DW;  // W = L⁻¹Aᵀ, DW = D⁻¹W
      for (int b = 0; b < R; ++b) {
        for (int i = 0; i < N; ++i) W(i, b) = A(b, i);
        mass_factor.forward(W.col(b));
        for (int i = 0; i < N; ++i) DW(i, b) = W(i, b) * mass_factor.inverse_pivot(i);
      }
      VecR rhs;
      access_.curvature(q, v, rhs);  // (∂A/∂q)[v]v + A a
      MatR C;
      for (int a = 0; a < R; ++a) {
        double s = 0.0;
        for (int i = 0; i < N; ++i) s += DW(i, a) * f[i];
        rhs[a] += s;
        for (int b = 0; b <= a; ++b) {
          double cab = 0.0;
          for (int i = 0; i < N; ++i) cab += W(i, a) * DW(i, b);
          C(a, b) = C(b, a) = cab;
        }
      }
      const VecR lambda = constraint_multiplier(C, rhs);
      for (int i = 0; i < N; ++i) f[i] *= mass_factor.inverse_pivot(i);
      for (int b = 0; b < R; ++b)
        for (int i = 0; i < N; ++i) f[i] += DW(i, b) * lambda[b];
      lambda_ = lambda;
    } else {
      for (int i = 0; i < N; ++i) f[i] *= mass_factor.inverse_pivot(i);
    }
    mass_factor.backward(f);
    for (int i = 0; i < N; ++i) {
      vdot[i] = f[i];
      qdot[i] = v[i];
    }
  }

 private:
  /// λ = −C⁻¹ rhs for C = A M⁻¹Aᵀ, which must be positive definite (else the constraints are
  /// dependent here: StepFailure). One division for r = 1; SmallLdlt for r > 1 (Eigen's LLT of
  /// a 2×2 matrix cost a tenth of the disk's RK4 step).
  static VecR constraint_multiplier(const MatR& C, const VecR& rhs) {
    VecR lambda;
    if constexpr (R == 1) {
      if (!(C(0, 0) > 0.0)) singular();
      lambda[0] = -rhs[0] / C(0, 0);
    } else {
      SmallLdlt<R> factor;
      if (!factor.factor(C)) singular();
      for (int a = 0; a < R; ++a) lambda[a] = -rhs[a];
      factor.solve(lambda);
    }
    return lambda;
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void singular() {
    throw StepFailure("constraint matrix A M⁻¹ Aᵀ is singular", 0.0);
  }
  Access access_;
  MatN Minv_;
  VecR lambda_;
};

}  // namespace dalembert
