#pragma once
// The Lie-group model (DESIGN §2): a mechanical system on (shape) × G, Q = S × G, with a reduced
// Lagrangian ℓ(r, u, ξ) = ½ (u, ξ)ᵀ 𝕄(r) (u, ξ) (u = ṙ, ξ = g⁻¹ġ the body velocity) and
// nonholonomic constraints in the body frame, written through the nonholonomic connection
// (spec 001 §3.3, seed 001 §5):
//
//     admissible velocities  ξ = E(r) s − A(r) u,   s ∈ Rᶜ,
//
// E(r) = [e₁ … e_c] a *regular* basis of the constrained symmetry directions, A(r) the
// connection (d × dim S). Forces: shape forces f_r(t,q,v) (joint torques) and a body wrench
// f_g ∈ 𝔤* (d'Alembert: they enter the reduced equations as ⟨f, δ⟩).
//
// State layout: q = (r, group coordinates), v = (ṙ, group velocities). For G = SE(2) the group
// coordinates are (θ, x, y) and the velocities their time derivatives (spec §2.0), shared with the
// ConstrainedLagrangian model of the same system. For G = SO(3) (issue 29) they are a unit
// quaternion (qw, qx, qy, qz) and the body angular velocity ω (3 numbers: dim q ≠ dim v), as in
// RigidBodyModel; no chart anywhere. Integrators convert (q, v) ↔ (r, g, u, ξ) through the group
// structs' State-slice adapters (math/se2.hpp, math/so3_group.hpp: body_velocity_at,
// coordinate_velocity_at, compose_at), one template per scheme; a new group is a new LieGroup
// value and a new struct with those names, not new virtual functions.
#include <Eigen/Cholesky>
#include <boost/config.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>

namespace dalembert {

enum class LieGroup { SE2, SO3 };  // SO3: since 29 (adding a value is source compatible)
const char* to_string(LieGroup);
/// dim 𝔤 (= the number of group velocities in v).
int group_dimension(LieGroup);
/// The number of group coordinates in q (3 for SE(2), 4 for SO(3)'s quaternion).
int group_coordinates(LieGroup);

class BOOST_SYMBOL_VISIBLE LieGroupModel {
 public:
  static constexpr const char* model_name = "LieGroupModel";
  virtual ~LieGroupModel();

  virtual LieGroup group() const = 0;
  virtual int shape_dim() const = 0;                 ///< dim S (0 for the sleigh)
  virtual int num_symmetry_directions() const = 0;   ///< c

  /// 𝕄(r), (n_r + d)², ordering (u, ξ). ℓ = ½ (u,ξ)ᵀ𝕄(u,ξ).
  virtual void locked_mass(ConstVecRef r, MatRef M) const = 0;
  /// True when 𝕄 does not depend on r (every seed-001 example; required by gni and rdp).
  virtual bool constant_locked_mass() const { return true; }
  /// A(r), d × n_r.
  virtual void connection(ConstVecRef r, MatRef A) const = 0;
  /// E(r), d × c, regular everywhere (spec §2.2: ẽ₁ rather than e₁ for the snakeboard).
  virtual void symmetry_basis(ConstVecRef r, MatRef E) const = 0;

  virtual bool has_forces() const { return false; }
  /// Shape forces (n_r) and body wrench (d) at (t, q, v).
  virtual void forces(double t, ConstVecRef q, ConstVecRef v, VecRef f_shape, VecRef f_body) const {
    f_shape.setZero();
    f_body.setZero();
  }

  /// Throws an InputError if the state cannot be simulated by this model (e.g. a singular set).
  virtual void check_state(const State&) const {}

  // ---- derived, non-virtual (implemented in lie_group_model.cpp; they allocate: use outside step)
  int group_dim() const { return group_dimension(group()); }
  int reduced_dim() const { return shape_dim() + group_dim(); }  ///< n = dim S + dim G (= dim v)
  int coordinate_dim() const { return shape_dim() + group_coordinates(group()); }  ///< dim q
};

/// Conversions between the shared state (q, v) and the model's (r, g, u, ξ), allocation-free.
/// "Coordinates" are those of v: on SE(2) q̇ = v, on SO(3) v = ω is already the body velocity, so
/// the group block of J is the identity and the mass in v is 𝕄. constrained_acceleration (which
/// moves q along v) and QuasiVelocityField need q̇ = v: SE(2) only, an Error on SO(3).
namespace lie {

/// z = (u, ξ) of coordinate velocities v at q.
void reduced_velocity(const LieGroupModel&, ConstVecRef q, ConstVecRef v, VecRef z);
/// v of z = (u, ξ) at q.
void coordinate_velocity(const LieGroupModel&, ConstVecRef q, ConstVecRef z, VecRef v);
/// J(q): z = J(q) v (block diagonal: identity on the shape, the group's body Jacobian).
void velocity_jacobian(const LieGroupModel&, ConstVecRef q, MatRef J);
/// Admissible basis in (u, ξ): B(r) = [[I, 0], [−A(r), E(r)]], n × (n_r + c).
void admissible_basis(const LieGroupModel&, ConstVecRef r, MatRef B);
/// Coordinate mass Jᵀ𝕄J (n × n) and a basis of D_q in coordinates J⁻¹B (n × (n_r + c)).
void coordinate_mass(const LieGroupModel&, ConstVecRef q, MatRef M);
void distribution_basis(const LieGroupModel&, ConstVecRef q, MatRef BD);
/// Coordinate generalised force at (t, q, v): (f_shape, Jᵀ f_body).
void coordinate_force(const LieGroupModel&, double t, ConstVecRef q, ConstVecRef v, VecRef f);
/// Continuous acceleration of the constrained motion (constant coordinate mass): with v = B_D w,
/// B_Dᵀ(M q̈ − f) = 0 and q̈ = B_D ẇ + (DB_D[v]) w (DB_D by central differences). Allocates.
void constrained_acceleration(const LieGroupModel&, double t, ConstVecRef q, ConstVecRef v, VecRef qddot);
/// True when the coordinate mass is the same at a few test configurations (what gni needs).
bool coordinate_mass_is_constant(const LieGroupModel&);

}  // namespace lie

/// The constrained equations of motion in quasi-velocities w (q̇ = B_D(q) w), a reduced ODE that
/// stays on D by construction (spec 001 §3.4: "RK2 on the reduced ODE", the control):
///     q̇ = B_D w,   (B_DᵀMB_D) ẇ = B_Dᵀ (f − M (DB_D[q̇]) w),
/// constant coordinate mass M, DB_D[q̇] by central differences (relative error ~1e-10).
/// Buffers are sized in bind(); evaluate() does not allocate.
class BOOST_SYMBOL_VISIBLE QuasiVelocityField {
 public:
  void bind(const LieGroupModel& model);
  int n() const { return n_; }
  int k() const { return k_; }
  /// w of an admissible coordinate velocity v at q (M-orthogonal: (BᵀMB)⁻¹BᵀM v).
  void quasi_velocity(ConstVecRef q, ConstVecRef v, VecRef w);
  /// v = B_D(q) w.
  void velocity(ConstVecRef q, ConstVecRef w, VecRef v);
  void evaluate(double t, ConstVecRef q, ConstVecRef w, VecRef qdot, VecRef wdot);

 private:
  void basis(ConstVecRef q, Mat& B);
  const LieGroupModel* model_ = nullptr;
  int nr_ = 0, n_ = 0, k_ = 0;
  Mat M_, A_, E_, B_, Bp_, Bm_, MB_, BMB_;
  Eigen::LLT<Mat> llt_;
  Vec v_, qp_, f_, tmp_, tk_, fr_, fg_;
};

}  // namespace dalembert
