// The particle-binder torus hitting a rigid wall (seed 003 §4, spec 003 §4b), and any other
// particle-binder configuration (e.g. the two-sphere test of spec claim 13) through the "custom"
// geometry. Spherical bodies with scalar m_i, J_i; potential U = U^m + U^a + U^s + U^pp (+ U^pw)
// built from the framework's pieces (dalembert_plugins/rigid_potentials.hpp). State layout: per body
// (x, y, z, qw, qx, qy, qz) and (vx, vy, vz, Wx, Wy, Wz) with spatial Ω (core/rigid_body_model.hpp).
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert_plugins/rigid_potentials.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/core/json_input.hpp>
#include <numbers>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace {

using namespace dalembert;

void tbb_loop(std::size_t n, void* ctx, void (*body)(void*, std::size_t, std::size_t)) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 256),
                    [&](const tbb::blocked_range<std::size_t>& r) { body(ctx, r.begin(), r.end()); });
}

Vec3 vec3(const JsonCursor& c) {
  if (c.size() != 3) c.fail("must be an array of 3 numbers");
  return Vec3(c.at(0).number(), c.at(1).number(), c.at(2).number());
}

// A per-body quantity: absent (the fallback), one number for every body, or an array of n numbers.
std::vector<double> per_body(const JsonCursor& c, std::size_t n, double fallback) {
  if (c.json().is_null()) return std::vector<double>(n, fallback);
  if (c.json().is_number()) return std::vector<double>(n, c.number());
  if (!c.json().is_array() || c.size() != n) c.fail("must be a number or an array of " + std::to_string(n) + " numbers");
  return c.numbers();
}

class BinderTorus final : public RigidBodySystem, public Drawable {
 public:
  explicit BinderTorus(const Parameters& p)
      : Km_(p.number("K_m")), Ka_(p.number("K_a")), Ks_(p.number("K_s")), Kpp_(p.number("K_pp")),
        Kpw_(p.number("K_pw")), wall_(p.boolean("wall")), wall_x_(p.number("wall_x")),
        wall_n_(vec3(json_parameter(p, "wall_normal"))), objective_(p.string("shear") == "objective"),
        skin_factor_(p.number("skin")), threshold_(static_cast<std::size_t>(p.integer("parallel_threshold"))) {
    if (p.string("geometry") == "ring") {
      // Spec §4b: Np spheres of diameter Dp = Dt sin(π/Np) on a circle of diameter Dt in the x–y
      // plane, x_i0 = (xc,0,0) + Rot_y(tilt)(Dt/2)(cos 2πi/Np, sin 2πi/Np, 0), xc = Dt/2 + Dp/2 + gap.
      const int N = static_cast<int>(p.integer("n"));
      const double Dt = p.number("Dt"), pi = std::numbers::pi;
      const double Dp = Dt * std::sin(pi / N);
      const double xc = Dt / 2 + Dp / 2 + p.number("gap");
      const double tilt = p.number("tilt_deg") * pi / 180.0;
      const Mat3 Ry = Eigen::AngleAxisd(tilt, Vec3::UnitY()).toRotationMatrix();
      for (int i = 0; i < N; ++i) {
        const double a = 2 * pi * i / N;
        Vec3 r(Dt / 2 * std::cos(a), Dt / 2 * std::sin(a), 0.0);
        if (tilt != 0.0) r = Ry * r;
        x0_.push_back(Vec3(xc, 0, 0) + r);
        bonds_.push_back({i, (i + 1) % N});
      }
      D_.assign(static_cast<std::size_t>(N), Dp);
    } else {  // custom: positions, diameters, bonds
      const JsonCursor pos = json_parameter(p, "positions");
      if (!pos.json().is_array() || pos.json().empty()) pos.fail("custom geometry needs positions [[x,y,z], ...]");
      for (std::size_t i = 0; i < pos.size(); ++i) x0_.push_back(vec3(pos.at(i)));
      D_ = per_body(json_parameter(p, "diameters"), x0_.size(), 1.0);
      bonds_ = parse_bonds(json_parameter(p, "bonds"), x0_.size());
    }
    const std::size_t n = x0_.size();
    m_ = per_body(json_parameter(p, "masses"), n, 1.0);
    J_ = per_body(json_parameter(p, "inertias"), n, 1.0);
    Dmax_ = *std::max_element(D_.begin(), D_.end());
  }

  // Bonds [[i, j], ...] between distinct bodies 0 <= i, j < n.
  static std::vector<std::pair<int, int>> parse_bonds(const JsonCursor& c, std::size_t n) {
    std::vector<std::pair<int, int>> out;
    for (std::size_t k = 0; k < c.size(); ++k) {
      const JsonCursor b = c.at(k);
      if (b.size() != 2) b.fail("a bond is a pair [i, j] of body indices");
      const long i = b.at(0).integer(), j = b.at(1).integer();
      const auto body = [n](long x) { return x >= 0 && static_cast<std::size_t>(x) < n; };
      if (!body(i) || !body(j) || i == j)
        b.fail("bond (" + std::to_string(i) + ", " + std::to_string(j) + ") must join two distinct bodies of 0.." +
               std::to_string(n - 1));
      out.emplace_back(static_cast<int>(i), static_cast<int>(j));
    }
    return out;
  }

  int bodies() const override { return static_cast<int>(x0_.size()); }
  bool translational() const override { return true; }
  double mass(int i) const override { return m_[static_cast<std::size_t>(i)]; }
  double inertia(int i) const override { return J_[static_cast<std::size_t>(i)]; }
  const std::vector<Vec3>& reference_positions() const { return x0_; }

  std::vector<std::unique_ptr<PotentialTerm>> make_potential() const override {
    std::vector<rigid::BinderBonds::Bond> bonds;
    for (auto [i, j] : bonds_) {
      const Vec3 d0 = x0_[static_cast<std::size_t>(i)] - x0_[static_cast<std::size_t>(j)];
      bonds.push_back({i, j, d0 / d0.norm(), d0.norm()});
    }
    std::vector<double> r(D_.size());
    for (std::size_t i = 0; i < D_.size(); ++i) r[i] = 0.5 * D_[i];
    auto b = std::make_unique<rigid::BinderBonds>(std::move(bonds), Km_, Ka_, Ks_, objective_);
    auto c = std::make_unique<rigid::HertzContact>(r, Kpp_, skin_factor_ * Dmax_);
    b->set_parallel(&tbb_loop, threshold_);
    c->set_parallel(&tbb_loop, threshold_);
    std::vector<std::unique_ptr<PotentialTerm>> t;
    t.push_back(std::move(b));
    t.push_back(std::move(c));
    if (wall_) t.push_back(std::make_unique<rigid::HertzWall>(r, Kpw_, wall_n_, wall_x_));
    return t;
  }

  void extra_diagnostic_names(std::vector<std::string>& n) const override {
    for (const char* c : {"centroid_x", "centroid_y", "centroid_z", "min_wall_gap"}) n.push_back(c);
  }
  void extra_diagnostics(const RigidSnapshot& s, double* out) const override {
    Vec3 c = Vec3::Zero();
    double gap = std::numeric_limits<double>::infinity();
    const Vec3 nn = wall_n_.normalized();
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      c += s.x[i];
      gap = std::min(gap, s.x[i].dot(nn) - wall_x_ - 0.5 * D_[i]);
    }
    c /= static_cast<double>(s.x.size());
    out[0] = c.x(), out[1] = c.y(), out[2] = c.z(), out[3] = gap;
  }

  // How the binder looks (core/drawable.hpp), seen along z: each sphere a circle of its diameter at
  // (x_i, y_i), the bonds as links, the wall (when there is one) at x = wall_x; the centre of the
  // first sphere is traced.
  nlohmann::json drawing() const override {
    const std::size_t n = x0_.size();
    auto column = [&](const char* c, std::size_t i) { return n > 1 ? std::string(c) + "_" + std::to_string(i) : std::string(c); };
    nlohmann::json frames = nlohmann::json::array(), shapes = nlohmann::json::array();
    double lo = 0.0, hi = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      frames.push_back({{"name", "body_" + std::to_string(i)}, {"transform", {{{"translate", {column("x", i), column("y", i)}}}}}});
      shapes.push_back({{"frame", "body_" + std::to_string(i)}, {"circle", {{"radius", D_[i] / 2}}}, {"color", "tab:blue"}});
      lo = std::min(lo, x0_[i].y() - D_[i]), hi = std::max(hi, x0_[i].y() + D_[i]);
    }
    for (const auto& [i, j] : bonds_)
      shapes.push_back({{"link", {"body_" + std::to_string(i), "body_" + std::to_string(j)}}, {"color", "0.3"}, {"width", 0.8}});
    if (wall_) shapes.push_back({{"frame", "world"}, {"line", {{wall_x_, lo}, {wall_x_, hi}}}, {"color", "k"}, {"width", 3}});
    return {{"dimension", 2}, {"frames", frames}, {"shapes", shapes},
            {"traces", {{{"frame", "body_0"}, {"label", "sphere 0"}}}}};
  }

 private:
  double Km_, Ka_, Ks_, Kpp_, Kpw_;
  bool wall_;
  double wall_x_;
  Vec3 wall_n_;
  bool objective_;
  double skin_factor_;
  std::size_t threshold_;
  std::vector<Vec3> x0_;
  std::vector<std::pair<int, int>> bonds_;
  std::vector<double> D_, m_, J_;
  double Dmax_ = 0.0;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "binder_torus";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Particle-binder torus (80 spheres, bending/shear/axial bonds, Hertz contact) hitting a rigid wall; or a custom binder configuration";
  d.seed = "003 (Baker & Gonzalez), Sec 4, Figs 3-7; spec 003 §4b";
  const double inf = std::numeric_limits<double>::infinity();
  d.params = {
      {"geometry", ParamType::String, "ring", "ring (spec §4b) or custom (positions, diameters, bonds)", -inf, inf, {"ring", "custom"}},
      // At most 10^5 spheres (the tests run 3000): memory grows with n, and a huge n is a typo.
      {"n", ParamType::Integer, 80, "ring: number of spheres Np", 3, 1e5},
      {"Dt", ParamType::Number, 3.0, "ring: torus diameter", 0.0},
      {"gap", ParamType::Number, 0.1, "ring: initial distance between the ring and the wall (A16)"},
      {"tilt_deg", ParamType::Number, 0.0, "ring: rotation of the ring about e2 before translating (3D variant: 30)"},
      {"positions", ParamType::Json, nlohmann::json::array(), "custom: reference (= initial) positions [[x,y,z], ...]"},
      {"diameters", ParamType::Json, 1.0, "custom: diameters (number or array); ring: always Dt sin(pi/Np)"},
      {"bonds", ParamType::Json, nlohmann::json::array(), "custom: bonds [[i, j], ...] (ordered: the shear law depends on it)"},
      {"masses", ParamType::Json, 1.0, "masses (number or array; default 1)"},
      {"inertias", ParamType::Json, 1.0, "scalar inertias J (number or array; default 1, A22)"},
      {"K_m", ParamType::Number, 10.0, "bending/torsion stiffness K^m"},
      {"K_a", ParamType::Number, 200.0, "axial stiffness K^a"},
      {"K_s", ParamType::Number, 200.0, "shear stiffness K^s"},
      {"K_pp", ParamType::Number, 2100.0, "particle-particle Hertz stiffness K^pp"},
      {"K_pw", ParamType::Number, 2100.0, "particle-wall Hertz stiffness K^pw (not given; A15: = K^pp)"},
      {"wall", ParamType::Boolean, true, "a rigid wall"},
      {"wall_x", ParamType::Number, 0.0, "wall position x_w along its normal"},
      {"wall_normal", ParamType::Json, nlohmann::json::array({1.0, 0.0, 0.0}), "wall normal n"},
      {"shear", ParamType::String, "paper", "shear law: paper (c = R_i e0 . R_j d) or objective (spec §4b)", -inf, inf, {"paper", "objective"}},
      {"skin", ParamType::Number, 0.5, "Verlet-list skin, in units of the largest diameter", 1e-6},
      {"parallel_threshold", ParamType::Integer, 4096, "bonds/pairs above which force evaluation runs in parallel (TBB)", 1},
  };
  d.make_system = [](const Parameters& p) { return std::make_unique<BinderTorus>(p); };
  // Two bonded spheres without a wall (spec 003 claim 13): x, quaternion and v, Omega per body.
  d.examples = {system_example("two spheres", {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0},
                               {0.3, 0.1, -0.2, 0.5, -1, 0.3, -0.1, 0.2, 0.05, -0.2, 0.4, 0.8}, 0.01,
                               {{"geometry", "custom"}, {"positions", {{0, 0, 0}, {1, 0, 0}}}, {"bonds", {{0, 1}}},
                                {"masses", {1.0, 2.0}}, {"inertias", {0.5, 1.0}}, {"wall", false}})};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
