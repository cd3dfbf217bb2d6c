#pragma once
// The continuous nonholonomic vector field (spec 000 §2.0) of a fixed-size model, every call
// inlined:  q̇ = v,  M v̇ = −∇V + Aᵀλ,  λ = −C⁻¹[A a + (∂A/∂q)[v]v],  a = −M⁻¹∇V,  C = A M⁻¹Aᵀ.
// The dynamic-size NonholonomicVectorField (core/nonholonomic_field.hpp) evaluates the same formula
// for any plugin system through its virtual interface; this one orders it so that a model's
// closed-form products (apply_constraint, add_constraint_force) skip the structural zeros of A.
// tests/framework/test_compiled_schemes.cpp checks that the two agree to round-off.
// A configuration-dependent M(q) (issue 28 item 6; issue 32 item 1): the same field with the
// velocity terms, M v̇ = −∇V − c(q,v) + Aᵀλ, c = Ṁv − ½∂_q(vᵀMv) (ad::coriolis, one AD pass), and
// M(q) factorised at every evaluation (fixed-size LLT, no heap), as NonholonomicVectorField does:
//   a = M⁻¹(−∇V − c),  B = M⁻¹Aᵀ,  λ = −(A B)⁻¹[A a + (∂A/∂q)[v]v],  v̇ = a + Bλ.
#include <Eigen/Cholesky>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/model_access.hpp>

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
      VecR lambda;
      if constexpr (R == 1) {  // C is a positive number
        if (!(C(0, 0) > 0.0)) singular();
        lambda[0] = -(rhs[0] + Aa[0]) / C(0, 0);
      } else {
        const Eigen::LLT<MatR> llt(C);
        if (llt.info() != Eigen::Success) singular();
        lambda = -llt.solve(rhs + Aa);
      }
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

  /// The field with M(q) (the header's formula), every matrix fixed-size.
  void evaluate_configuration_mass(double, const VecN& q, const VecN& v, VecN& qdot, VecN& vdot) {
    constexpr int N = Access::N;
    VecN f, c;  // f = −∇V − c(q, v)
    access_.potential_gradient(q, f);
    access_.coriolis(q, v, c);
    for (int i = 0; i < N; ++i) f[i] = -f[i] - c[i];
    MatN M;
    access_.mass(q, M);
    const Eigen::LLT<MatN> mass_llt(M);
    if (mass_llt.info() != Eigen::Success)
      throw StepFailure("the mass matrix M(q) is not positive definite", 0.0);
    VecN a = mass_llt.solve(f);  // a = M⁻¹f
    if constexpr (R > 0) {
      MatRN A;
      access_.constraint_matrix(q, A);
      const MatNR B = mass_llt.solve(A.transpose());  // B = M⁻¹Aᵀ
      VecR rhs;
      access_.curvature(q, v, rhs);  // (∂A/∂q)[v]v
      rhs.noalias() += A * a;
      const MatR C = A * B;
      VecR lambda;
      if constexpr (R == 1) {
        if (!(C(0, 0) > 0.0)) singular();
        lambda[0] = -rhs[0] / C(0, 0);
      } else {
        const Eigen::LLT<MatR> llt(C);
        if (llt.info() != Eigen::Success) singular();
        lambda = -llt.solve(rhs);
      }
      a.noalias() += B * lambda;
      lambda_ = lambda;
    }
    for (int i = 0; i < N; ++i) {
      vdot[i] = a[i];
      qdot[i] = v[i];
    }
  }

 private:
  [[noreturn, gnu::cold, gnu::noinline]] static void singular() {
    throw StepFailure("constraint matrix A M⁻¹ Aᵀ is singular", 0.0);
  }
  Access access_;
  MatN Minv_;
  VecR lambda_;
};

}  // namespace dalembert
