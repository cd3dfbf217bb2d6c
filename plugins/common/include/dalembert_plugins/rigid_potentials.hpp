#pragma once
// Composable potential pieces for RigidBodyModel systems (spec 003 §4): the pendulum and the
// binder torus are configurations of these, not copies.
//   PivotGravity   U = −m g e3·(R ρ0)                         (paper (39); spec §4a)
//   BinderBonds    U^m, U^a, U^s per bond (i, j)               (paper (44)–(55); spec §4b items 1–3)
//   HertzContact   U^pp = (2/5) K^pp [1 − L/(r_i+r_j)]_+^{5/2} (paper (56)–(57) with the 2/5 of A14)
//   HertzWall      U^pw = (2/5) K^pw [1 − (x·n − x_w)/r]_+^{5/2} (mirror particle; spec §4b, A15)
// Every force is −∂U/∂x_i; every torque is the SPATIAL torque −∂U/∂ϑ_i for R_i → exp(S(ϑ)) R_i.
//
// Large n: the per-bond and per-pair kernels write into per-item buffers that are then gathered
// in a fixed order, so results do not depend on the thread count. A plugin may install a parallel
// loop (e.g. TBB) with set_parallel(); the default is serial.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/rigid_body_model.hpp>
#include <string>
#include <dalembert/math/so3.hpp>
#include <utility>
#include <vector>

namespace dalembert::rigid {

/// A parallel loop over [0, n) in chunks: run(n, ctx, body) calls body(ctx, begin, end).
using ParallelLoop = void (*)(std::size_t n, void* ctx, void (*body)(void*, std::size_t, std::size_t));
inline void serial_loop(std::size_t n, void* ctx, void (*body)(void*, std::size_t, std::size_t)) { body(ctx, 0, n); }

// ---------------------------------------------------------------------------------------------
/// Pendulum about a fixed pivot (spec §4a): U = −m g e3·(R ρ0) (paper (39), force +mg e3), spatial
/// torque T = m g (R ρ0) × e3 (A3). Body 0 only.
class PivotGravity final : public PotentialTerm {
 public:
  PivotGravity(double m, double g, Vec3 rho0, Vec3 e3) : mg_(m * g), rho0_(rho0), e3_(e3) {}
  std::vector<std::string> energy_names() const override { return {"U_gravity"}; }
  bool external() const override { return true; }
  void evaluate(const Vec3*, const Mat3* R, Vec3*, Vec3* T, double* U) override {
    const Vec3 r = R[0] * rho0_;
    U[0] = -mg_ * e3_.dot(r);
    if (T) T[0] += mg_ * r.cross(e3_);
  }

 private:
  double mg_;
  Vec3 rho0_, e3_;
};

// ---------------------------------------------------------------------------------------------
/// Binder bonds (spec §4b items 1–3), each bond (i, j) ordered and counted once, with reference
/// d0 = x_i0 − x_j0, L0 = |d0|, e0 = d0/L0.
class BinderBonds final : public PotentialTerm {
 public:
  struct Bond {
    int i, j;
    Vec3 e0;
    double L0;
  };
  BinderBonds(std::vector<Bond> bonds, double Km, double Ka, double Ks, bool objective)
      : bonds_(std::move(bonds)), Km_(Km), Ka_(Ka), Ks_(Ks), objective_(objective), out_(bonds_.size()) {}
  void set_parallel(ParallelLoop p, std::size_t threshold) { loop_ = p, threshold_ = threshold; }

  std::vector<std::string> energy_names() const override { return {"U_m", "U_a", "U_s"}; }

  void evaluate(const Vec3* x, const Mat3* R, Vec3* F, Vec3* T, double* U) override {
    Ctx c{this, x, R, F != nullptr};
    const std::size_t nb = bonds_.size();
    (nb >= threshold_ ? loop_ : serial_loop)(nb, &c, &Ctx::run);
    double um = 0, ua = 0, us = 0;
    for (std::size_t k = 0; k < nb; ++k) {  // fixed-order gather
      const Out& o = out_[k];
      um += o.um, ua += o.ua, us += o.us;
      if (F) {
        const Bond& b = bonds_[k];
        F[b.i] += o.Fi, F[b.j] -= o.Fi;
        T[b.i] += o.Ti, T[b.j] += o.Tj;
      }
    }
    U[0] = um, U[1] = ua, U[2] = us;
  }

  /// One bond: energies, force on i (force on j is −F_i), spatial torques on i and j.
  void bond(const Bond& b, const Vec3* x, const Mat3* R, bool forces, double& um, double& ua, double& us, Vec3& Fi,
            Vec3& Ti, Vec3& Tj) const {
    // (1) Bending/torsion (44)–(50): U^m = ½ K^m |θ_ij|², exp(S(θ_ij)) = R_i R_jᵀ (robust log);
    //     T_i = −K^m θ_ij, T_j = +K^m θ_ij.
    const Vec3 th = so3::log(R[b.i] * R[b.j].transpose());
    um = 0.5 * Km_ * th.squaredNorm();
    // (2) Axial (51)–(52): U^a = ½ K^a (L/L0 − 1)², F_i = −(K^a/L0)(L/L0 − 1) d̂.
    const Vec3 d = x[b.i] - x[b.j];
    const double L = d.norm();
    const Vec3 dh = d / L;
    const double strain = L / b.L0 - 1.0;
    ua = 0.5 * Ka_ * strain * strain;
    // (3) Shear (53)–(55).
    Vec3 Fs, Tsi, Tsj;
    const Vec3 ai = R[b.i] * b.e0;
    if (!objective_) {
      // Paper convention: c = (R_i e0)·(R_j d̂), U^s = ½K^s(1 − c)²;
      // F_i = K^s(1−c)(I − d̂d̂ᵀ) R_jᵀ(R_i e0)/L; T_i = K^s(1−c)(R_i e0) × (R_j d̂) = −T_j.
      const Vec3 bj = R[b.j] * dh;
      const double c = ai.dot(bj), k = Ks_ * (1.0 - c);
      us = 0.5 * Ks_ * (1.0 - c) * (1.0 - c);
      if (forces) {
        const Vec3 g = R[b.j].transpose() * ai;
        Fs = (k / L) * (g - dh * dh.dot(g));
        Tsi = k * ai.cross(bj);
        Tsj = -Tsi;
      }
    } else {
      // Objective variant (spec §4b, not the paper's): c = ½(R_i e0 + R_j e0)·d̂;
      // T_i = ½K^s(1−c)(R_i e0) × d̂, T_j = ½K^s(1−c)(R_j e0) × d̂, F_i = K^s(1−c)(I − d̂d̂ᵀ) ā/L.
      const Vec3 aj = R[b.j] * b.e0, abar = 0.5 * (ai + aj);
      const double c = abar.dot(dh), k = Ks_ * (1.0 - c);
      us = 0.5 * Ks_ * (1.0 - c) * (1.0 - c);
      if (forces) {
        Fs = (k / L) * (abar - dh * dh.dot(abar));
        Tsi = 0.5 * k * ai.cross(dh);
        Tsj = 0.5 * k * aj.cross(dh);
      }
    }
    if (forces) {
      Fi = -(Ka_ / b.L0) * strain * dh + Fs;
      Ti = -Km_ * th + Tsi;
      Tj = Km_ * th + Tsj;
    }
  }

 private:
  struct Out {
    double um = 0, ua = 0, us = 0;
    Vec3 Fi = Vec3::Zero(), Ti = Vec3::Zero(), Tj = Vec3::Zero();
  };
  struct Ctx {
    BinderBonds* self;
    const Vec3* x;
    const Mat3* R;
    bool forces;
    static void run(void* p, std::size_t b, std::size_t e) {
      auto& c = *static_cast<Ctx*>(p);
      for (std::size_t k = b; k < e; ++k) {
        Out& o = c.self->out_[k];
        c.self->bond(c.self->bonds_[k], c.x, c.R, c.forces, o.um, o.ua, o.us, o.Fi, o.Ti, o.Tj);
      }
    }
  };
  std::vector<Bond> bonds_;
  double Km_, Ka_, Ks_;
  bool objective_;
  std::vector<Out> out_;
  ParallelLoop loop_ = serial_loop;
  std::size_t threshold_ = SIZE_MAX;
};

// ---------------------------------------------------------------------------------------------
/// Hertz-type particle–particle contact on ALL pairs i < j (spec §4b item 4, A14):
/// U^pp = (2/5) K^pp δ_+^{5/2}, δ = 1 − L/(r_i + r_j); F_i = K^pp/(r_i+r_j) δ_+^{3/2} d̂ = −F_j.
/// Verlet pair list (skin), built with a uniform cell grid (no all-pairs loop), rebuilt when some
/// body moved more than skin/2 since the last build. Exact: a pair outside the list has no overlap.
class HertzContact final : public PotentialTerm {
 public:
  HertzContact(std::vector<double> radii, double K, double skin)
      : r_(std::move(radii)), K_(K), skin_(skin), n_(static_cast<int>(r_.size())) {
    rmax_ = r_.empty() ? 0.0 : *std::max_element(r_.begin(), r_.end());
    x_ref_.assign(r_.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
    pairs_.reserve(8 * r_.size());
    out_.reserve(8 * r_.size());
  }
  void set_parallel(ParallelLoop p, std::size_t threshold) { loop_ = p, threshold_ = threshold; }
  std::vector<std::string> energy_names() const override { return {"U_pp"}; }
  std::size_t pair_count() const { return pairs_.size(); }
  long rebuilds() const { return rebuilds_; }

  void evaluate(const Vec3* x, const Mat3*, Vec3* F, Vec3*, double* U) override {
    if (needs_rebuild(x)) rebuild(x);
    Ctx c{this, x};
    const std::size_t np = pairs_.size();
    (np >= threshold_ ? loop_ : serial_loop)(np, &c, &Ctx::run);
    double u = 0;
    for (std::size_t k = 0; k < np; ++k) {
      const Out& o = out_[k];
      if (o.u == 0.0) continue;
      u += o.u;
      if (F) F[pairs_[k].first] += o.f, F[pairs_[k].second] -= o.f;
    }
    U[0] = u;
  }

 private:
  struct Out {
    double u = 0;
    Vec3 f = Vec3::Zero();
  };
  struct Ctx {
    HertzContact* self;
    const Vec3* x;
    static void run(void* p, std::size_t b, std::size_t e) {
      auto& c = *static_cast<Ctx*>(p);
      auto& s = *c.self;
      for (std::size_t k = b; k < e; ++k) {
        const auto [i, j] = s.pairs_[k];
        const Vec3 d = c.x[i] - c.x[j];
        const double rs = s.r_[i] + s.r_[j];
        const double L = d.norm(), delta = 1.0 - L / rs;
        Out& o = s.out_[k];
        if (delta <= 0.0) {
          o.u = 0.0;
          o.f.setZero();
          continue;
        }
        const double d32 = delta * std::sqrt(delta);
        o.u = 0.4 * s.K_ * d32 * delta;   // (56) with 2/5
        o.f = (s.K_ / rs * d32 / L) * d;  // (57)
      }
    }
  };

  bool needs_rebuild(const Vec3* x) const {
    const double lim2 = 0.25 * skin_ * skin_;
    for (int i = 0; i < n_; ++i)
      if (!((x[i] - x_ref_[i]).squaredNorm() < lim2)) return true;  // NaN (first call) → rebuild
    return false;
  }

  // Most pairs a pair list may hold: 64 per body (a packing of equal spheres has about 9 within
  // the cut-off), at least 10^6 (bodies of unequal sizes). More means the bodies have collapsed
  // onto each other, and the list would grow like n²/2.
  std::size_t max_pairs() const { return std::max<std::size_t>(64 * r_.size(), 1000000); }

  // No pairs, and the next evaluation rebuilds: the list never outlives a failed rebuild.
  [[noreturn]] void fail_rebuild(const std::string& reason, double residual) {
    pairs_.clear();
    x_ref_.assign(r_.size(), Vec3::Constant(std::numeric_limits<double>::quiet_NaN()));
    throw StepFailure(reason, residual);
  }

  void rebuild(const Vec3* x) {
    ++rebuilds_;
    pairs_.clear();
    const double cut = 2.0 * rmax_ + skin_;  // a pair that can touch before the next rebuild
    Vec3 lo = x[0], hi = x[0];
    bool finite = true;
    for (int i = 0; i < n_; ++i) {
      finite = finite && x[i].allFinite();  // min/max would skip a NaN
      lo = lo.cwiseMin(x[i]), hi = hi.cwiseMax(x[i]), x_ref_[i] = x[i];
    }
    const Vec3 ext = hi - lo;
    if (!finite || !ext.allFinite() || ext.maxCoeff() > 1e12 * cut)  // a blown-up run: no grid can hold it
      fail_rebuild("contact neighbour search: positions are non-finite or spread over " +
                       number_text(ext.maxCoeff(), "%.3g") + " (the run blew up; reduce h)",
                   ext.maxCoeff());
    // Cell size ≥ cut, and at most ~ 4n cells in total. Counted in double: ext/cut reaches 10^12,
    // beyond an int.
    double cell = cut;
    auto cells_for = [&](double c) { return Eigen::Vector3d((ext / c).array().floor() + 1.0); };
    Eigen::Vector3d ncd = cells_for(cell);
    while (ncd.prod() > 4.0 * n_ + 64) {
      cell *= 1.5;
      ncd = cells_for(cell);
    }
    const Eigen::Vector3i nc = ncd.cast<int>();
    const std::size_t ncell = static_cast<std::size_t>(nc.x()) * nc.y() * nc.z();
    head_.assign(ncell, -1);
    next_.assign(static_cast<std::size_t>(n_), -1);
    cell_of_.resize(static_cast<std::size_t>(n_));
    auto coord = [&](const Vec3& p) {
      Eigen::Vector3i c;
      for (int a = 0; a < 3; ++a) c[a] = static_cast<int>(std::min<double>(nc[a] - 1, std::floor((p[a] - lo[a]) / cell)));
      return c;
    };
    for (int i = n_ - 1; i >= 0; --i) {  // reverse, so each cell lists its bodies in increasing order
      const Eigen::Vector3i c = coord(x[i]);
      const std::size_t id = (static_cast<std::size_t>(c.z()) * nc.y() + c.y()) * nc.x() + c.x();
      next_[i] = head_[id];
      head_[id] = i;
      cell_of_[i] = c;
    }
    const double cut2 = cut * cut;
    for (int i = 0; i < n_; ++i) {
      const Eigen::Vector3i c = cell_of_[i];
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const Eigen::Vector3i o(c.x() + dx, c.y() + dy, c.z() + dz);
            if ((o.array() < 0).any() || (o.array() >= nc.array()).any()) continue;
            const std::size_t id = (static_cast<std::size_t>(o.z()) * nc.y() + o.y()) * nc.x() + o.x();
            for (int j = head_[id]; j >= 0; j = next_[j]) {
              if (j <= i) continue;
              const double cutij = r_[i] + r_[j] + skin_;
              if (!((x[i] - x[j]).squaredNorm() < std::min(cut2, cutij * cutij))) continue;
              if (pairs_.size() == max_pairs())
                fail_rebuild("contact neighbour search: more than " + std::to_string(max_pairs()) + " pairs of " +
                                 std::to_string(n_) + " bodies within the cut-off " + number_text(cut, "%.3g") +
                                 " (the bodies collapsed onto each other: the run blew up; reduce h)",
                             static_cast<double>(pairs_.size()));
              pairs_.emplace_back(i, j);
            }
          }
    }
    std::sort(pairs_.begin(), pairs_.end());  // a canonical order: bitwise independent of the grid
    out_.resize(pairs_.size());
  }

  std::vector<double> r_;
  double K_, skin_, rmax_ = 0.0;
  int n_;
  std::vector<Vec3> x_ref_;
  std::vector<std::pair<int, int>> pairs_;
  std::vector<Out> out_;
  std::vector<int> head_, next_;
  std::vector<Eigen::Vector3i> cell_of_;
  long rebuilds_ = 0;
  ParallelLoop loop_ = serial_loop;
  std::size_t threshold_ = SIZE_MAX;
};

// ---------------------------------------------------------------------------------------------
/// Particle–wall contact, frictionless, no torque (spec §4b "Missing in the paper", A15): the pp
/// law with a mirror particle: s = x·n − x_w, δ = 1 − s/r;
/// U^pw = (2/5) K^pw δ_+^{5/2}, F = (K^pw/r) δ_+^{3/2} n.
class HertzWall final : public PotentialTerm {
 public:
  HertzWall(std::vector<double> radii, double K, Vec3 normal, double xw)
      : r_(std::move(radii)), K_(K), n_(normal.normalized()), xw_(xw) {}
  std::vector<std::string> energy_names() const override { return {"U_pw"}; }
  bool external() const override { return true; }
  void evaluate(const Vec3* x, const Mat3*, Vec3* F, Vec3*, double* U) override {
    double u = 0;
    for (std::size_t i = 0; i < r_.size(); ++i) {
      const double delta = 1.0 - (x[i].dot(n_) - xw_) / r_[i];
      if (delta <= 0.0) continue;
      const double d32 = delta * std::sqrt(delta);
      u += 0.4 * K_ * d32 * delta;
      if (F) F[i] += (K_ / r_[i] * d32) * n_;
    }
    U[0] = u;
  }

 private:
  std::vector<double> r_;
  double K_;
  Vec3 n_;
  double xw_;
};

/// Uniform gravity on the centres of mass: U = −Σ m_i g·x_i (not used by the paper's tests).
class UniformGravity final : public PotentialTerm {
 public:
  UniformGravity(std::vector<double> m, Vec3 g) : m_(std::move(m)), g_(g) {}
  std::vector<std::string> energy_names() const override { return {"U_gravity"}; }
  bool external() const override { return true; }
  void evaluate(const Vec3* x, const Mat3*, Vec3* F, Vec3*, double* U) override {
    double u = 0;
    for (std::size_t i = 0; i < m_.size(); ++i) {
      u -= m_[i] * g_.dot(x[i]);
      if (F) F[i] += m_[i] * g_;
    }
    U[0] = u;
  }

 private:
  std::vector<double> m_;
  Vec3 g_;
};

}  // namespace dalembert::rigid
