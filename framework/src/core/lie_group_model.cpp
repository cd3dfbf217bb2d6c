// The Lie-group model's key function (unique RTTI across plugins) and its coordinate helpers
// (spec 001 §2.0: body ↔ coordinate velocities; §2.2: the basis form of D).
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <dalembert/core/errors.hpp>
#include <dalembert/math/llt_storage.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/math/se2.hpp>
#include <dalembert/math/so3_group.hpp>

namespace dalembert {

LieGroupModel::~LieGroupModel() = default;

const char* to_string(LieGroup g) {
  switch (g) {
    case LieGroup::SE2: return "SE(2)";
    case LieGroup::SO3: return "SO(3)";
  }
  return "?";
}

int group_dimension(LieGroup g) {
  switch (g) {
    case LieGroup::SE2: return SE2::dim;
    case LieGroup::SO3: return SO3::dim;
  }
  throw Error("unknown Lie group");
}

int group_coordinates(LieGroup g) {
  switch (g) {
    case LieGroup::SE2: return SE2::coordinates;
    case LieGroup::SO3: return SO3::coordinates;
  }
  throw Error("unknown Lie group");
}

namespace lie {

namespace {
// The group's body Jacobian at the group coordinates starting at q[nr].
Eigen::Matrix3d group_jacobian(const LieGroupModel& m, ConstVecRef q) {
  switch (m.group()) {
    case LieGroup::SE2: return SE2::body_jacobian(q[m.shape_dim()]);
    case LieGroup::SO3: return Eigen::Matrix3d::Identity();  // v holds the body angular velocity: ξ = v
  }
  throw Error("unknown Lie group");
}
}  // namespace

void reduced_velocity(const LieGroupModel& m, ConstVecRef q, ConstVecRef v, VecRef z) {
  const int nr = m.shape_dim();
  z.head(nr) = v.head(nr);
  z.segment<3>(nr) = group_jacobian(m, q) * v.segment<3>(nr);
}

void coordinate_velocity(const LieGroupModel& m, ConstVecRef q, ConstVecRef z, VecRef v) {
  const int nr = m.shape_dim();
  v.head(nr) = z.head(nr);
  v.segment<3>(nr) = group_jacobian(m, q).transpose() * z.segment<3>(nr);  // orthogonal for SE(2)
}

void velocity_jacobian(const LieGroupModel& m, ConstVecRef q, MatRef J) {
  const int nr = m.shape_dim();
  J.setZero();
  J.topLeftCorner(nr, nr).setIdentity();
  J.block<3, 3>(nr, nr) = group_jacobian(m, q);
}

void admissible_basis(const LieGroupModel& m, ConstVecRef r, MatRef B) {
  const int nr = m.shape_dim(), d = m.group_dim(), c = m.num_symmetry_directions();
  Mat A(d, nr), E(d, c);
  m.connection(r, A);
  m.symmetry_basis(r, E);
  B.setZero();
  B.topLeftCorner(nr, nr).setIdentity();
  B.block(nr, 0, d, nr) = -A;
  B.block(nr, nr, d, c) = E;
}

void coordinate_mass(const LieGroupModel& m, ConstVecRef q, MatRef M) {
  const int n = m.reduced_dim();
  Mat J(n, n), ML(n, n);
  velocity_jacobian(m, q, J);
  m.locked_mass(q.head(m.shape_dim()), ML);
  M = J.transpose() * ML * J;
}

void distribution_basis(const LieGroupModel& m, ConstVecRef q, MatRef BD) {
  const int n = m.reduced_dim(), k = m.shape_dim() + m.num_symmetry_directions();
  Mat J(n, n), B(n, k);
  velocity_jacobian(m, q, J);
  admissible_basis(m, q.head(m.shape_dim()), B);
  BD = J.transpose() * B;  // J⁻¹ = Jᵀ (orthogonal blocks)
}

void coordinate_force(const LieGroupModel& m, double t, ConstVecRef q, ConstVecRef v, VecRef f) {
  const int nr = m.shape_dim(), d = m.group_dim();
  if (!m.has_forces()) {
    f.setZero();
    return;
  }
  Vec fr(nr), fg(d);
  m.forces(t, q, v, fr, fg);
  f.head(nr) = fr;
  f.segment(nr, d) = group_jacobian(m, q).transpose() * fg;  // ⟨f_g, ξ⟩ = ⟨Jᵀf_g, v⟩
}

void constrained_acceleration(const LieGroupModel& m, double t, ConstVecRef q, ConstVecRef v, VecRef qddot) {
  if (m.group() != LieGroup::SE2)
    throw Error(std::string("lie::constrained_acceleration needs q̇ = v, which ") + to_string(m.group()) +
                " systems do not have (q holds a quaternion, v the body angular velocity)");
  const int n = m.reduced_dim(), k = m.shape_dim() + m.num_symmetry_directions();
  Mat M(n, n), B(n, k), Bp(n, k), Bm(n, k);
  Vec f(n);
  coordinate_mass(m, q, M);
  distribution_basis(m, q, B);
  coordinate_force(m, t, q, v, f);
  const Mat BMB = B.transpose() * M * B;
  const Eigen::LLT<Mat> llt(BMB);
  const Vec w = llt.solve(B.transpose() * (M * v));
  // DB[v] by central differences along v (error ~1e-10 relative; used for initialisations only)
  const double eps = 1e-5 / (1.0 + v.lpNorm<Eigen::Infinity>());
  const Vec qp = q + eps * v, qm = q - eps * v;
  distribution_basis(m, qp, Bp);
  distribution_basis(m, qm, Bm);
  const Vec Bdot_w = (Bp - Bm) * w / (2 * eps);
  const Vec wdot = llt.solve(B.transpose() * (f - M * Bdot_w));
  qddot = B * wdot + Bdot_w;
}

bool coordinate_mass_is_constant(const LieGroupModel& m) {
  const int n = m.reduced_dim();
  Mat M0(n, n), M1(n, n);
  Vec q = Vec::Zero(n);
  coordinate_mass(m, q, M0);
  for (int trial = 0; trial < 3; ++trial) {
    for (int i = 0; i < n; ++i) q[i] = 0.37 * (i + 1) + 0.91 * trial;
    coordinate_mass(m, q, M1);
    if ((M1 - M0).lpNorm<Eigen::Infinity>() > 1e-13 * (1.0 + M0.lpNorm<Eigen::Infinity>())) return false;
  }
  return true;
}

}  // namespace lie

void QuasiVelocityField::bind(const LieGroupModel& model) {
  model_ = &model;
  nr_ = model.shape_dim();
  n_ = model.reduced_dim();
  k_ = nr_ + model.num_symmetry_directions();
  if (model.group() != LieGroup::SE2) throw Error(std::string("QuasiVelocityField: no support for ") + to_string(model.group()));
  if (!model.constant_locked_mass() || !lie::coordinate_mass_is_constant(model))
    throw Error("QuasiVelocityField needs a constant coordinate mass matrix");
  M_.resize(n_, n_);
  lie::coordinate_mass(model, Vec::Zero(n_), M_);
  A_.resize(3, nr_);
  E_.resize(3, k_ - nr_);
  for (Mat* m : {&B_, &Bp_, &Bm_, &MB_}) m->resize(n_, k_);
  BMB_.resize(k_, k_);
  size_llt(llt_, k_);
  for (Vec* v : {&v_, &qp_, &f_, &tmp_}) v->resize(n_);
  tk_.resize(k_);
  fr_.resize(nr_);
  fg_.resize(3);
}

// B_D(q) = J(q)ᵀ [[I, 0], [−A(r), E(r)]] without allocation
void QuasiVelocityField::basis(ConstVecRef q, Mat& B) {
  const auto r = q.head(nr_);
  model_->connection(r, A_);
  model_->symmetry_basis(r, E_);
  const Eigen::Matrix3d Jt = SE2::body_jacobian(q[nr_]).transpose();
  B.setZero();
  B.topLeftCorner(nr_, nr_).setIdentity();
  B.block(nr_, 0, 3, nr_).noalias() = -Jt * A_;
  B.block(nr_, nr_, 3, k_ - nr_).noalias() = Jt * E_;
}

void QuasiVelocityField::quasi_velocity(ConstVecRef q, ConstVecRef v, VecRef w) {
  basis(q, B_);
  MB_.noalias() = M_ * B_;
  BMB_.noalias() = B_.transpose() * MB_;
  llt_.compute(BMB_);
  w.noalias() = MB_.transpose() * v;
  llt_.solveInPlace(w);
}

void QuasiVelocityField::velocity(ConstVecRef q, ConstVecRef w, VecRef v) {
  basis(q, B_);
  v.noalias() = B_ * w;
}

void QuasiVelocityField::evaluate(double t, ConstVecRef q, ConstVecRef w, VecRef qdot, VecRef wdot) {
  basis(q, B_);
  v_.noalias() = B_ * w;
  qdot = v_;
  // DB_D[v] w by central differences along v
  const double eps = 1e-5 / (1.0 + v_.lpNorm<Eigen::Infinity>());
  qp_ = q + eps * v_;
  basis(qp_, Bp_);
  qp_ = q - eps * v_;
  basis(qp_, Bm_);
  basis(q, B_);
  tmp_.noalias() = Bp_ * w;
  tmp_.noalias() -= Bm_ * w;
  tmp_ /= (2 * eps);
  // f = (f_shape, Jᵀ f_body)
  if (model_->has_forces()) {
    model_->forces(t, q, v_, fr_, fg_);
    f_.head(nr_) = fr_;
    f_.segment<3>(nr_) = SE2::body_jacobian(q[nr_]).transpose() * fg_.head<3>();
  } else {
    f_.setZero();
  }
  f_.noalias() -= M_ * tmp_;
  MB_.noalias() = M_ * B_;
  BMB_.noalias() = B_.transpose() * MB_;
  llt_.compute(BMB_);
  wdot.noalias() = B_.transpose() * f_;
  llt_.solveInPlace(wdot);
}

}  // namespace dalembert
