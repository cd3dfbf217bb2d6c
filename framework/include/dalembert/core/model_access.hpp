#pragma once
// How a scheme template reaches a ConstrainedLagrangian model (issue 4). The discrete equations
// (Newmark, the continuous field, Newton) are written once as templates over an Access type that
// supplies the model's functions and its Eigen types:
//   * DynamicAccess: any plugin system through the virtual ConstrainedLagrangian interface, on
//     dynamic-size vectors — what a separately compiled integrator plugin uses;
//   * FixedAccess<Model>: a fixed-size model struct (schemes/fixed_lagrangian_system.hpp), every call
//     inlined, fixed-size Eigen types — the same scheme compiled inside the system's plugin.
// Both give (∂A/∂q)[v]v, DA[w] and Σ_a λ_a ∂A_a; a fixed model may give them in closed form.
#include <Eigen/Core>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/model_rules.hpp>
#include <dalembert/core/nonholonomic_field.hpp>  // ConstraintContractions
#include <dalembert/math/forward_derivatives.hpp>

namespace dalembert {

/// The Eigen types of a scheme on n degrees of freedom and r constraints (Eigen::Dynamic or fixed).
/// U is the size of the Newmark unknown u = (Q, λ, λ′).
template <int N_, int R_>
struct ModelSizes {
  static constexpr int N = N_, R = R_;
  static constexpr int U = (N_ == Eigen::Dynamic || R_ == Eigen::Dynamic) ? Eigen::Dynamic : N_ + 2 * R_;
  using VecN = Eigen::Matrix<double, N, 1>;
  using VecR = Eigen::Matrix<double, R, 1>;
  using VecU = Eigen::Matrix<double, U, 1>;
  using MatN = Eigen::Matrix<double, N, N>;
  using MatRN = Eigen::Matrix<double, R, N>;
  using MatNR = Eigen::Matrix<double, N, R>;
  using MatR = Eigen::Matrix<double, R, R>;
  using MatU = Eigen::Matrix<double, U, U>;
};

/// Blocks whose size is fixed when known at compile time (Rows/Cols may be Eigen::Dynamic):
/// x.block(i, j, rows, cols), x.segment(i, size).
template <int Rows, int Cols, class X>
auto sized_block(X&& x, Eigen::Index i, Eigen::Index j, Eigen::Index rows, Eigen::Index cols) {
  if constexpr (Rows == Eigen::Dynamic || Cols == Eigen::Dynamic)
    return x.block(i, j, rows, cols);
  else
    return x.template block<Rows, Cols>(i, j);
}
template <int Size, class X>
auto sized_segment(X&& x, Eigen::Index i, Eigen::Index size) {
  if constexpr (Size == Eigen::Dynamic)
    return x.segment(i, size);
  else
    return x.template segment<Size>(i);
}

/// A plugin system through its virtual interface (dynamic sizes). Contractions use one n×n buffer.
class DynamicAccess : public ModelSizes<Eigen::Dynamic, Eigen::Dynamic> {
 public:
  void bind(const ConstrainedLagrangian& model) {
    model_ = &model;
    contractions_.bind(model);
  }
  int n() const { return model_->dof(); }
  int r() const { return model_->num_constraints(); }
  bool constant_mass() const { return model_->constant_mass(); }
  void mass(ConstVecRef q, MatRef M) const { model_->mass(q, M); }
  void potential_gradient(ConstVecRef q, VecRef g) const { model_->potential_gradient(q, g); }
  void potential_hessian(ConstVecRef q, MatRef H) const { model_->potential_hessian(q, H); }
  void constraint_matrix(ConstVecRef q, MatRef A) const { model_->constraint_matrix(q, A); }
  /// c = (∂A/∂q)[v]v
  void curvature(ConstVecRef q, ConstVecRef v, VecRef c) { contractions_.curvature(q, v, c); }
  /// DA[w], r×n
  void constraint_derivative(ConstVecRef q, ConstVecRef w, MatRef DA) { contractions_.derivative(q, w, DA); }
  /// K = Σ_a λ_a ∂A_a, n×n
  void transpose_derivative(ConstVecRef q, ConstVecRef lambda, MatRef K) {
    contractions_.transpose_derivative(q, lambda, K);
  }

 private:
  const ConstrainedLagrangian* model_ = nullptr;
  ConstraintContractions contractions_;
};

/// The rows of a model's constraint distribution: its r nonholonomic ones and its k holonomic ones
/// (Eigen::Dynamic when r is).
template <class Model>
inline constexpr int distribution_rows = Model::constraints == Eigen::Dynamic
                                             ? Eigen::Dynamic
                                             : Model::constraints + model_rules::holonomic_count<Model>;

/// A fixed-size model struct (see FixedLagrangianSystem for what it must and may define). A
/// derivative the model does not write is derived from V, M, A and g by forward-mode AD
/// (math/forward_derivatives.hpp); one it writes takes precedence. With k holonomic constraints the
/// access presents the distribution C = [A; ∂g/∂q] (R = r + k rows): its constraint functions are
/// those of the model's A in the first r rows and those of g's velocity form in the last k.
template <class Model>
class FixedAccess : public ModelSizes<Model::dof, distribution_rows<Model>> {
 public:
  using Sizes = ModelSizes<Model::dof, distribution_rows<Model>>;
  using typename Sizes::MatN;
  using typename Sizes::MatRN;
  using typename Sizes::VecN;
  using typename Sizes::VecR;
  static constexpr int N = Model::dof, R = distribution_rows<Model>;
  /// The model's own rows: RA rows of A, K of g (K a compile-time number).
  static constexpr int RA = Model::constraints, K = model_rules::holonomic_count<Model>;
  using VecRA = Eigen::Matrix<double, RA, 1>;
  using MatRAN = Eigen::Matrix<double, RA, N>;

  // ----- what the model writes -----
  /// M(q): mass(q, M); a constant M: mass(M); neither: M = I.
  static constexpr bool configuration_mass = requires(const Model& m, const VecN& q, MatN& M) { m.mass(q, M); };
  static constexpr bool unit_mass = !configuration_mass && !requires(const Model& m, MatN& M) { m.mass(M); };
  static constexpr bool hand_potential_gradient = requires(const Model& m, const VecN& q, VecN& g) {
    m.potential_gradient(q, g);
  };
  static constexpr bool hand_potential_hessian = requires(const Model& m, const VecN& q, MatN& H) {
    m.potential_hessian(q, H);
  };
  static constexpr bool hand_constraint_gradient = requires(const Model& m, const VecN& q, MatN& G) {
    m.constraint_gradient(q, 0, G);
  };
  static constexpr bool hand_curvature = requires(const Model& m, const VecN& q, VecRA& c) { m.curvature(q, q, c); };
  static constexpr bool hand_constraint_derivative = requires(const Model& m, const VecN& q, MatRAN& DA) {
    m.constraint_derivative(q, q, DA);
  };
  static constexpr bool hand_coriolis = requires(const Model& m, const VecN& q, VecN& c) { m.coriolis(q, q, c); };
  /// The model lists the coordinates its M(q) depends on (`static constexpr std::array<int, m>
  /// mass_coordinates`): the derivatives of M take m AD directions instead of n (forward_derivatives.hpp).
  static constexpr bool listed_mass_coordinates = configuration_mass && requires { Model::mass_coordinates.size(); };
  /// The model lists the coordinates V(q) and g(q) depend on (`static constexpr std::array<int, m>
  /// potential_coordinates`): ∇V, ∂g/∂q and g's second derivatives take m AD directions instead of n.
  static constexpr bool listed_potential_coordinates = requires { Model::potential_coordinates.size(); };

  void bind(const Model& model) { model_ = &model; }
  const Model& model() const { return *model_; }
  /// n and r: the model's compile-time sizes, or, where one is Eigen::Dynamic, its n() or r().
  int n() const {
    if constexpr (N == Eigen::Dynamic)
      return model_->n();
    else
      return N;
  }
  /// r + k: the rows of the distribution.
  int r() const { return ra() + K; }
  /// The model's own rows of A (its r).
  int ra() const {
    if constexpr (RA == Eigen::Dynamic)
      return model_->r();
    else
      return RA;
  }
  static constexpr bool constant_mass() { return !configuration_mass; }
  void mass(const auto& q, auto&& M) const {
    if constexpr (configuration_mass)
      model_->mass(q, M);
    else if constexpr (unit_mass)
      M.setIdentity();
    else
      model_->mass(M);
  }
  /// Ṁv − ½∂_q(vᵀMv); zero for a constant M.
  void coriolis(const auto& q, const auto& v, auto&& c) const {
    if constexpr (hand_coriolis)
      model_->coriolis(q, v, c);
    else if constexpr (listed_mass_coordinates)
      ad::coriolis_listed<N>(*model_, Model::mass_coordinates, q, v, c);
    else if constexpr (configuration_mass)
      ad::coriolis<N>(*model_, q, v, c);
    else
      c.setZero();
  }
  /// M(q) and Ṁv − ½∂_q(vᵀMv) together: AD's pass for c gives M as its values (one evaluation of
  /// the model's M, not two). Needs configuration_mass.
  void mass_and_coriolis(const auto& q, const auto& v, auto&& M, auto&& c) const {
    if constexpr (hand_coriolis) {
      model_->mass(q, M);
      model_->coriolis(q, v, c);
    } else if constexpr (listed_mass_coordinates) {
      ad::mass_and_coriolis_listed<N>(*model_, Model::mass_coordinates, q, v, M, c);
    } else {
      ad::mass_and_coriolis<N>(*model_, q, v, M, c);
    }
  }
  /// ½∂_q(vᵀM(q)v); zero for a constant M.
  void kinetic_gradient(const auto& q, const auto& v, auto&& k) const {
    if constexpr (listed_mass_coordinates)
      ad::kinetic_gradient_listed<N>(*model_, Model::mass_coordinates, q, v, k);
    else if constexpr (configuration_mass)
      ad::kinetic_gradient<N>(*model_, q, v, k);
    else
      k.setZero();
  }
  /// ∂_q(M(q)v) (n×n); zero for a constant M.
  void mass_derivative(const auto& q, const auto& v, auto&& D) const {
    if constexpr (listed_mass_coordinates)
      ad::mass_derivative_listed<N>(*model_, Model::mass_coordinates, q, v, D);
    else if constexpr (configuration_mass)
      ad::mass_derivative<N>(*model_, q, v, D);
    else
      D.setZero();
  }
  void potential_gradient(const auto& q, auto&& g) const {
    if constexpr (hand_potential_gradient)
      model_->potential_gradient(q, g);
    else if constexpr (listed_potential_coordinates)
      ad::potential_gradient_listed<N>(*model_, Model::potential_coordinates, q, g);
    else
      ad::potential_gradient<N>(*model_, q, g);
  }
  void potential_hessian(const auto& q, auto&& H) const {
    if constexpr (hand_potential_hessian)
      model_->potential_hessian(q, H);
    else if constexpr (listed_potential_coordinates)
      ad::potential_hessian_listed<N>(*model_, Model::potential_coordinates, q, H);
    else
      ad::potential_hessian<N>(*model_, q, H);
  }
  /// C(q) = [A(q); ∂g/∂q] (r + k rows; A alone without g). On doubles.
  void constraint_matrix(const auto& q, auto&& A) const {
    if constexpr (K == 0) {
      if constexpr (RA != 0) model_->constraint_matrix(q, A);
    } else {
      if constexpr (RA != 0) model_->constraint_matrix(q, sized_block<RA, N>(A, 0, 0, ra(), n()));
      holonomic_jacobian(q, sized_block<K, N>(A, ra(), 0, K, n()));
    }
  }
  /// G_{ij} = ∂C_{ai}/∂q^j: ∂A_{ai}/∂q^j for a row of A, ∇²g_b for the row of ∂g_b/∂q.
  void constraint_gradient(const auto& q, int a, auto&& G) const {
    if constexpr (K > 0) {
      if (a >= ra()) return ad::holonomic_hessian<N, K>(*model_, K, q, a - ra(), G);
    }
    if constexpr (hand_constraint_gradient)
      model_->constraint_gradient(q, a, G);
    else
      ad::constraint_gradient<N, RA>(*model_, ra(), q, a, G);
  }

  // ----- holonomic constraints g(q) = 0 (issue 28) -----
  /// g(q) (k).
  void holonomic(const auto& q, auto&& g) const {
    if constexpr (K > 0) model_->holonomic_constraint(q, g);
  }
  /// ∂g/∂q (k×n), by AD.
  void holonomic_jacobian(const auto& q, auto&& J) const {
    if constexpr (K > 0 && listed_potential_coordinates)
      ad::holonomic_jacobian_listed<N, K>(*model_, K, Model::potential_coordinates, q, J);
    else if constexpr (K > 0)
      ad::holonomic_jacobian<N, K>(*model_, K, q, J);
  }

  /// Whether the model gives A(q)x and A(q)ᵀλ in closed form (apply_constraint, add_constraint_force):
  /// that skips the structural zeros of A, which a dense product cannot (0·x is not 0 in IEEE
  /// arithmetic). Worth it when A(q) is cheap to recompute per product (no transcendental functions).
  /// Not used with holonomic constraints (the products would miss the rows of g).
  static constexpr bool constraint_products = K == 0 && requires(const Model& m, const VecN& x, VecN& f, VecR& y) {
    m.apply_constraint(x, x, y);
    m.add_constraint_force(x, y, f);
  };
  /// y = A(q)x (r); needs constraint_products.
  void apply_constraint(const auto& q, const auto& x, auto&& y) const { model_->apply_constraint(q, x, y); }
  /// f += A(q)ᵀλ (n), the force of the multipliers λ; needs constraint_products.
  void add_constraint_force(const auto& q, const auto& lambda, auto&& f) const {
    model_->add_constraint_force(q, lambda, f);
  }

  /// c = (∂A/∂q)[v]v: the model's closed form, else from its hand-written constraint gradient, else
  /// AD; for the rows of g, vᵀ∇²g v (AD), the second derivative of g along v.
  void curvature(const auto& q, const auto& v, auto&& c) const {
    if constexpr (K > 0) {
      if constexpr (RA != 0) model_curvature(q, v, sized_segment<RA>(c, 0, ra()));
      if constexpr (listed_potential_coordinates)
        ad::holonomic_curvature_listed<N, K>(*model_, K, Model::potential_coordinates, q, v,
                                             sized_segment<K>(c, ra(), K));
      else
        ad::holonomic_curvature<N, K>(*model_, K, q, v, sized_segment<K>(c, ra(), K));
    } else {
      model_curvature(q, v, c);
    }
  }
  /// (DA[w])_{aj} = Σ_i ∂A_{ai}/∂q^j w_i; (∇²g w)_j for the rows of g.
  void constraint_derivative(const auto& q, const auto& w, auto&& DA) const {
    if constexpr (K > 0) {
      if constexpr (RA != 0) model_constraint_derivative(q, w, sized_block<RA, N>(DA, 0, 0, ra(), n()));
      if constexpr (listed_potential_coordinates)
        ad::holonomic_hessian_times_listed<N, K>(*model_, K, Model::potential_coordinates, q, w,
                                                 sized_block<K, N>(DA, ra(), 0, K, n()));
      else
        ad::holonomic_hessian_times<N, K>(*model_, K, q, w, sized_block<K, N>(DA, ra(), 0, K, n()));
    } else {
      model_constraint_derivative(q, w, DA);
    }
  }
  /// K_{ij} = Σ_a λ_a ∂C_{ai}/∂q^j (the rows of g: Σ_b λ_b ∇²g_b)
  void transpose_derivative(const auto& q, const auto& lambda, auto&& Kt) const {
    if constexpr (K == 0) {
      model_transpose_derivative(q, lambda, Kt);
    } else {
      model_transpose_derivative(q, sized_segment<RA>(lambda, 0, ra()), Kt);
      ad::add_holonomic_transpose_derivative<N, K>(*model_, K, q, sized_segment<K>(lambda, ra(), K), Kt);
    }
  }

 private:
  // The model's own rows of A.
  void model_curvature(const auto& q, const auto& v, auto&& c) const {
    if constexpr (hand_curvature) {
      model_->curvature(q, v, c);
    } else if constexpr (hand_constraint_gradient) {
      MatN G = ad::sized<MatN>(n(), n());
      gradient_curvature(*model_, ra(), q, v, c, G);
    } else {
      ad::curvature<N, RA>(*model_, ra(), q, v, c);
    }
  }
  void model_constraint_derivative(const auto& q, const auto& w, auto&& DA) const {
    if constexpr (hand_constraint_derivative) {
      model_->constraint_derivative(q, w, DA);
    } else if constexpr (hand_constraint_gradient) {
      MatN G = ad::sized<MatN>(n(), n());
      gradient_derivative(*model_, ra(), q, w, DA, G);
    } else {
      ad::constraint_derivative<N, RA>(*model_, ra(), q, w, DA);
    }
  }

  void model_transpose_derivative(const auto& q, const auto& lambda, auto&& Kt) const {
    if constexpr (hand_constraint_gradient) {
      MatN G = ad::sized<MatN>(n(), n());
      gradient_transpose_derivative(*model_, ra(), q, lambda, Kt, G);
    } else {
      ad::transpose_derivative<N, RA>(*model_, ra(), q, lambda, Kt);
    }
  }

  const Model* model_ = nullptr;
};

}  // namespace dalembert
