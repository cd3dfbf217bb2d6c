// The vertical rolling disk ("penny") on a circular or elliptical table (seed 004, Clark & Bloch
// §V; spec 004 §3). q = (x, y, θ, φ): contact point, rolling angle, heading.
//   L = ½m(ẋ²+ẏ²) + ½Iθ̇² + ½Jφ̇²  →  M = diag(m, m, I, J), V = 0;
//   constraints (23–24): ẋ = Rθ̇ cosφ, ẏ = Rθ̇ sinφ  →  A(φ) = [[1,0,−R cosφ,0],[0,1,−R sinφ,0]].
// Guards (27, 34, 35): h̃_σ(q) = h(x + σR cosφ, y + σR sinφ), h(X,Y) = X²/a² + Y²/b² − 1, σ = +1 front
// edge (guard 0), σ = −1 back edge (guard 1); h̃ < 0 inside the table.
// Exact flow (eq. 26 in the sinc form of spec 004 §3) and exact event location (spec 004 §3: the
// quartic z²·h(E_σ) in z = e^{iφ}, its closed form on the circle, roots polished by Newton in t).
#include <Eigen/Eigenvalues>
#include <cmath>
#include <complex>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/plugin/export.hpp>
#include <limits>
#include <numbers>

namespace {

using namespace dalembert;
using cplx = std::complex<double>;
constexpr double kPi = std::numbers::pi;

struct DiskParams {
  bool circle = true;
  double a = 0.2, b = 0.2, R = 0.01, m = 0.0025, I = 1.25e-7, J = 6.25e-8;
};

/// The ConstrainedLagrangian form as L and A (V = 0): ∂A/∂q comes from AD.
struct DiskModel {
  static constexpr int dof = 4, constraints = 2;
  DiskParams p;
  // M = diag(m, m, I, J) (spec 004 §3, "Lagrangian").
  void mass(auto&& M) const {
    M.setZero();
    M.diagonal() << p.m, p.m, p.I, p.J;
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }
  // A(φ) = [[1,0,−R cosφ,0],[0,1,−R sinφ,0]] (eqs. 23–24).
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;
    A << 1.0, 0.0, -p.R * cos(q[3]), 0.0, 0.0, 1.0, -p.R * sin(q[3]), 0.0;
  }
};

class VerticalRollingDisk final : public FixedLagrangianSystem<DiskModel>, public Guarded, public ExactEventLocator, public Drawable {
 public:
  explicit VerticalRollingDisk(const DiskParams& p) : FixedLagrangianSystem(DiskModel{p}) {}

  Layout layout() const override { return {{"x", "y", "theta", "phi"}, {"xdot", "ydot", "thetadot", "phidot"}}; }

  // The penny's independent velocities are (θ̇, φ̇); ẋ, ẏ follow from the constraints (spec 004 §4:
  // "the velocities follow from the constraints"). So a state is moved onto Δ by keeping θ̇, φ̇ and
  // setting ẋ = Rθ̇ cosφ, ẏ = Rθ̇ sinφ (a projection onto Δ along the (ẋ, ẏ) directions), which is
  // what a perturbation of (θ̇0, φ̇0) (Fig. 5) means. The M-orthogonal projection would instead mix a
  // θ̇ perturbation with ẋ, ẏ and shrink it by I/(I+mR²) = 1/3.
  bool project(State& s) const override {
    s.v[0] = params().R * s.v[2] * std::cos(s.q[3]);
    s.v[1] = params().R * s.v[2] * std::sin(s.q[3]);
    return true;
  }

  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"Omega", "omega", "front_x", "front_y", "back_x", "back_y", "h_front", "h_back"};
  }
  void diagnostics(const State& s, double* out) const override {
    out[0] = s.v[2];
    out[1] = s.v[3];
    for (int g = 0; g < 2; ++g) {
      const double sg = sign(g);
      out[2 + 2 * g] = s.q[0] + sg * params().R * std::cos(s.q[3]);
      out[3 + 2 * g] = s.q[1] + sg * params().R * std::sin(s.q[3]);
      out[6 + g] = guard(g, s.q);
    }
  }

  // ---- Exact flow (spec 004 §3, eq. 26 regular at ω = 0) ----------------------------------------
  bool has_exact_solution() const override { return true; }
  void exact_solution(const State& s0, double t, State& out) const override {
    const double dt = t - s0.t, Om = s0.v[2], om = s0.v[3], phi0 = s0.q[3];
    const double kappa = om == 0.0 ? dt : 2.0 * std::sin(0.5 * om * dt) / om;  // κ = 2 sin(ωt/2)/ω
    const double mid = phi0 + 0.5 * om * dt, phi = phi0 + om * dt;
    out.t = t;
    out.q.resize(4);
    out.v.resize(4);
    out.q << s0.q[0] + params().R * Om * std::cos(mid) * kappa, s0.q[1] + params().R * Om * std::sin(mid) * kappa,
        s0.q[2] + Om * dt, phi;
    out.v << params().R * Om * std::cos(phi), params().R * Om * std::sin(phi), Om, om;  // Ω, ω constant
  }

  // ---- Guards (spec 004 §3, "Guards") ------------------------------------------------------------
  int num_guards() const override { return 2; }
  std::string guard_name(int g) const override { return g == 0 ? "front edge" : "back edge"; }
  double guard(int g, ConstVecRef q) const override {
    const double sg = sign(g);
    return table(q[0] + sg * params().R * std::cos(q[3]), q[1] + sg * params().R * std::sin(q[3]));
  }
  // dh̃_σ = [h_X, h_Y, 0, σR(h_Y cosφ − h_X sinφ)] with (h_X, h_Y) at the edge point.
  void guard_gradient(int g, ConstVecRef q, VecRef dg) const override {
    const double sg = sign(g), c = std::cos(q[3]), s = std::sin(q[3]);
    const double X = q[0] + sg * params().R * c, Y = q[1] + sg * params().R * s;
    const double hX = 2.0 * X / (params().a * params().a), hY = 2.0 * Y / (params().b * params().b);
    dg << hX, hY, 0.0, sg * params().R * (hY * c - hX * s);
  }
  double guard_rate(int g, const State& st) const override {
    const double sg = sign(g), c = std::cos(st.q[3]), s = std::sin(st.q[3]);
    const double X = st.q[0] + sg * params().R * c, Y = st.q[1] + sg * params().R * s;
    const double hX = 2.0 * X / (params().a * params().a), hY = 2.0 * Y / (params().b * params().b);
    return hX * st.v[0] + hY * st.v[1] + sg * params().R * (hY * c - hX * s) * st.v[3];
  }

  // ---- Exact event location (spec 004 §3) --------------------------------------------------------
  bool next_impact(const State& s, double horizon, int skip, double& tau, int& sigma) const override {
    bool found = false;
    tau = horizon;
    for (int g = 0; g < 2; ++g) {
      double t;
      if (first_crossing(s, g, g == skip, horizon, t) && (!found || t < tau)) {
        found = true;
        tau = t;
        sigma = g;
      }
    }
    return found;
  }

  const DiskParams& params() const { return fixed_model().p; }

  // How the penny looks (core/drawable.hpp), from above: its table (circle or ellipse), the disk
  // edge-on along its heading φ at the contact point (x, y), and the contact point's path, whose
  // corners are the impacts with the table's edge.
  nlohmann::json drawing() const override {
    const DiskParams& d = params();
    nlohmann::json table = nlohmann::json::array();
    for (int k = 0; k <= 96; ++k) {
      const double t = 2 * std::numbers::pi * k / 96;
      table.push_back({d.a * std::cos(t), d.b * std::sin(t)});
    }
    return {{"dimension", 2},
            {"frames", {{{"name", "penny"}, {"transform", {{{"translate", {"x", "y"}}}, {{"rotate", "phi"}}}}}}},
            {"shapes", {{{"frame", "world"}, {"line", table}, {"color", "0.2"}, {"width", 2}},
                        {{"frame", "penny"}, {"line", {{-d.R, 0.0}, {d.R, 0.0}}}, {"color", "tab:orange"}, {"width", 4}},
                        {{"frame", "penny"}, {"point", {0.0, 0.0}}, {"color", "k"}, {"width", 3}}}},
            {"traces", {{{"frame", "penny"}, {"label", "contact point"}}}}};
  }

 private:
  static double sign(int g) { return g == 0 ? 1.0 : -1.0; }
  double table(double X, double Y) const { return X * X / (params().a * params().a) + Y * Y / (params().b * params().b) - 1.0; }

  // h̃_σ and its rate along the exact flow from s at time offset t.
  void along_flow(const State& s, int g, double t, double& h, double& rate) const {
    const double sg = sign(g), Om = s.v[2], om = s.v[3], phi0 = s.q[3];
    const double kappa = om == 0.0 ? t : 2.0 * std::sin(0.5 * om * t) / om;
    const double mid = phi0 + 0.5 * om * t, phi = phi0 + om * t, c = std::cos(phi), sn = std::sin(phi);
    const double X = s.q[0] + params().R * Om * std::cos(mid) * kappa + sg * params().R * c;
    const double Y = s.q[1] + params().R * Om * std::sin(mid) * kappa + sg * params().R * sn;
    const double Xd = params().R * Om * c - sg * params().R * om * sn, Yd = params().R * Om * sn + sg * params().R * om * c;
    h = table(X, Y);
    rate = 2.0 * X / (params().a * params().a) * Xd + 2.0 * Y / (params().b * params().b) * Yd;
  }

  // Newton on h̃_σ(t) along the exact flow from a candidate t (spec 004 §3: "polish them").
  bool polish(const State& s, int g, double& t, double period) const {
    double h, r;
    for (int it = 0; it < 40; ++it) {
      along_flow(s, g, t, h, r);
      if (r == 0.0) return false;
      double dt = -h / r;
      const double cap = 0.05 * period;
      if (std::abs(dt) > cap) dt = std::copysign(cap, dt);
      t += dt;
      if (std::abs(dt) <= 1e-15 * std::max(1.0, std::abs(t))) return true;
    }
    along_flow(s, g, t, h, r);
    return std::abs(h) < 1e-13;
  }

  // Near a grazing root at about t: the maximum of h̃_σ along the flow (Newton on the rate, its
  // derivative by central differences). If it reaches 0 within round-off (|h̃| ≲ 16ε(X²/a²+Y²/b²+1))
  // the arc touches the wall: t = the maximum. If it is clearly above 0, t = the rising root (bisection).
  bool grazing_contact(const State& s, int g, double& t, double period) const {
    double h, r, hp, rp, hm, rm;
    const double cap = 0.05 * period, t0 = t;
    for (int it = 0; it < 30; ++it) {
      const double e = 1e-6 * period;
      along_flow(s, g, t + e, hp, rp);
      along_flow(s, g, t - e, hm, rm);
      along_flow(s, g, t, h, r);
      const double dr = (rp - rm) / (2.0 * e);
      if (!(dr < 0.0)) return false;  // not near a maximum
      double dt = -r / dr;
      if (std::abs(dt) > cap) dt = std::copysign(cap, dt);
      t += dt;
      if (std::abs(t - t0) > 0.25 * period) return false;
      if (std::abs(dt) <= 1e-14 * std::max(1.0, std::abs(t))) break;
    }
    along_flow(s, g, t, h, r);
    const double tol = 16.0 * std::numeric_limits<double>::epsilon() * (h + 2.0);
    if (h < -tol) return false;  // the arc stays inside
    if (h <= tol) return true;   // touches within round-off: a contact at the maximum
    double lo = t - cap, hi = t;  // h(lo) < 0 < h(hi): the outward crossing
    along_flow(s, g, lo, h, r);
    if (!(h < 0.0)) return false;
    for (int it = 0; it < 200 && hi - lo > 1e-15 * std::max(1.0, std::abs(hi)); ++it) {
      const double mid = 0.5 * (lo + hi);
      along_flow(s, g, mid, h, r);
      (h < 0.0 ? lo : hi) = mid;
    }
    t = hi;
    return true;
  }

  // The earliest outward crossing of guard g in [0, horizon] (skip: the root at t = 0 is not one).
  bool first_crossing(const State& s, int g, bool skip, double horizon, double& best) const {
    const double sg = sign(g), Om = s.v[2], om = s.v[3], R = params().R;
    const double x0 = s.q[0], y0 = s.q[1], phi0 = s.q[3];
    // Candidate times; `exact_outward` marks the circle's closed-form outward root, whose direction
    // is known from the formula (not from the sign of a rate that may be round-off near grazing).
    struct Cand {
      double t;
      bool exact_outward;
      bool polish;
    };
    std::vector<Cand> cand;
    double period = std::numeric_limits<double>::infinity();
    const double scale = std::max(params().a, params().b);
    if (Om == 0.0) return false;  // spinning in place: the edges never move outward
    const double rho_s = om == 0.0 ? 0.0 : R * Om / om;  // ρ_s = RΩ/ω
    if (om == 0.0 || std::abs(rho_s) > 1e3 * scale) {
      // Straight line (ω = 0; also a first guess when the arc radius dwarfs the table): quadratic in t.
      const double c = std::cos(phi0), sn = std::sin(phi0);
      const double X0 = x0 + sg * R * c, Y0 = y0 + sg * R * sn, dx = R * Om * c, dy = R * Om * sn;
      const double A2 = dx * dx / (params().a * params().a) + dy * dy / (params().b * params().b);
      const double B = 2.0 * (X0 * dx / (params().a * params().a) + Y0 * dy / (params().b * params().b)), C = table(X0, Y0);
      const double disc = B * B - 4.0 * A2 * C;
      if (disc >= 0.0) {
        const double sq = std::sqrt(disc);
        for (double t : {(-B - sq) / (2.0 * A2), (-B + sq) / (2.0 * A2)}) cand.push_back({t, false, true});
      }
      if (om != 0.0) period = 2.0 * kPi / std::abs(om);
    } else {
      period = 2.0 * kPi / std::abs(om);
      // Centre of the contact-point circle: c = (x0 − ρ_s sinφ0, y0 + ρ_s cosφ0) (spec 004 §3).
      const double cx = x0 - rho_s * std::sin(phi0), cy = y0 + rho_s * std::cos(phi0);
      std::vector<Cand> phis;  // angles, converted to times below
      if (params().circle) {
        // Circle: K0 + 2(Ac cosφ + Bc sinφ) = 0 (spec 004 §3), i.e. K0 + 2N cos(φ − ψ) = 0 with
        // ψ = atan2(Bc, Ac). Along the flow dh̃/dt ∝ −ω sin(φ − ψ), so the outward root is
        // φ = ψ − sign(ω)·arccos(−K0/(2N)). A tangency (|−K0/(2N)| = 1) is not an impact (§6.7).
        const double a2 = params().a * params().a;
        const double K0 = cx * cx + cy * cy + rho_s * rho_s + R * R - a2;
        const double Ac = sg * R * cx - rho_s * cy, Bc = rho_s * cx + sg * R * cy;
        // Contact within round-off: max_φ a²h̃ = K0 + 2N is computed, and the state itself is known, to
        // ~ε(|c|² + ρ² + R² + a²) only. In the plastic limit cycle the edge leaves the table by less
        // than that from impact ~18 on (spec 004 claim 21: a²h̃_max ≈ 6e-18, 8e-19, 1e-19 at k = 18,
        // 19, 20 on the circle, below the 2.8e-17 m spacing of doubles near 0.2 m), so whether the
        // arc crosses is decided by round-off; an arc whose maximum reaches 0 within that bound is
        // a contact at its tangent point (d = 0), where the map acts on the velocity as it is there.
        const double N = std::hypot(Ac, Bc), arg = -K0 / (2.0 * N);
        const double tol_K = 16.0 * std::numeric_limits<double>::epsilon() * (cx * cx + cy * cy + rho_s * rho_s + R * R + a2);
        if (N > 0.0 && arg > -1.0 && arg < 1.0 + tol_K / (2.0 * N)) {
          const double psi = std::atan2(Bc, Ac), d = arg < 1.0 ? std::acos(arg) : 0.0;
          phis.push_back({psi - std::copysign(d, om), true, d > 1e-6});  // near-double roots: no Newton
        }
      } else {
        // Ellipse: z²·h(E_σ) with z = e^{iφ}, P1 = (σR − iρ_s)/2, P2 = (−ρ_s − iσR)/2 (spec 004 §3).
        const cplx P1(0.5 * sg * R, -0.5 * rho_s), P2(-0.5 * rho_s, -0.5 * sg * R);
        const double ia = 1.0 / (params().a * params().a), ib = 1.0 / (params().b * params().b);
        const cplx c4 = P1 * P1 * ia + P2 * P2 * ib;
        const cplx c3 = 2.0 * cx * P1 * ia + 2.0 * cy * P2 * ib;
        const cplx c2 = (cx * cx + 2.0 * std::norm(P1)) * ia + (cy * cy + 2.0 * std::norm(P2)) * ib - 1.0;
        const cplx c1 = std::conj(c3), c0 = std::conj(c4);
        Eigen::Matrix4cd comp = Eigen::Matrix4cd::Zero();  // companion matrix of the monic quartic
        comp(1, 0) = comp(2, 1) = comp(3, 2) = 1.0;
        comp(0, 3) = -c0 / c4;
        comp(1, 3) = -c1 / c4;
        comp(2, 3) = -c2 / c4;
        comp(3, 3) = -c3 / c4;
        Eigen::ComplexEigenSolver<Eigen::Matrix4cd> es(comp, false);
        for (int i = 0; i < 4; ++i) {
          const cplx z = es.eigenvalues()[i];
          if (std::abs(std::abs(z) - 1.0) < 1e-5) phis.push_back({std::arg(z), false, true});  // unimodular roots
        }
      }
      for (const Cand& c : phis) {
        double t = std::fmod((c.t - phi0) / om, period);  // t = ((arg z − φ0)/ω) mod 2π/|ω|
        if (t < 0.0) t += period;
        cand.push_back({t, c.exact_outward, c.polish});
      }
    }
    bool found = false;
    const double P = std::isfinite(period) ? period : 1.0;
    const double wrap_tol = 1e-9 * std::max(1.0, P);
    for (const Cand& c : cand) {
      double t = c.t;
      bool contact = false;  // a grazing contact within round-off (its rate is ~0, not > 0)
      if (c.polish && c.exact_outward) (void)polish(s, g, t, P);  // the circle's closed form, polished
      if (c.polish && !c.exact_outward) {
        double h, rate;
        const bool ok = polish(s, g, t, P) && (along_flow(s, g, t, h, rate), rate > 0.0);
        if (!ok) {
          // Newton failed or found the inward root: near grazing the two crossings merge within
          // round-off. The arc's maximum near the candidate decides (as for the circle above).
          t = c.t;
          if (!grazing_contact(s, g, t, P)) continue;
          contact = true;
        }
      }
      if (c.polish && c.exact_outward && std::abs(t - c.t) > 1e-6 * P) t = c.t;  // Newton wandered: keep the formula
      if (std::isfinite(period)) {  // bring back to [0, period); a root just below 0 is "now"
        t = std::fmod(t, period);
        if (t < 0.0) t += period;
        if (period - t < wrap_tol) t -= period;
      }
      if (skip && std::abs(t) < wrap_tol) continue;  // the root of the guard that just fired
      if (t < 0.0) {
        if (t < -wrap_tol) continue;
        t = 0.0;
      }
      if (!c.exact_outward && !contact) {
        double h, rate;
        along_flow(s, g, t, h, rate);
        if (!(rate > 0.0)) continue;  // outward crossings only (spec 004 §6.7)
      }
      if (t > horizon) continue;
      if (!found || t < best) best = t, found = true;
    }
    return found;
  }
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "vertical_rolling_disk";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Vertical rolling disk (penny) on a circular or elliptical table: 2 nonholonomic constraints, front/back edge guards, exact flow and exact event location";
  d.seed = "004 (Clark & Bloch, Sec V, Table I; spec 004 Sec 3)";
  const double inf = std::numeric_limits<double>::infinity();
  d.params = {
      {"table", ParamType::String, "circle", "table outline: circle (radius) or ellipse (a, b)", -inf, inf,
       {"circle", "ellipse"}},
      {"radius", ParamType::Number, 0.20, "radius of the circular table [m] (Table I: a = b = 0.20)", 0.0, inf},
      {"a", ParamType::Number, 0.15, "semi-axis along x of the elliptical table [m] (Table I: 0.15)", 0.0, inf},
      {"b", ParamType::Number, 0.20, "semi-axis along y of the elliptical table [m] (Table I: 0.20)", 0.0, inf},
      {"R", ParamType::Number, 0.01, "disk radius [m] (Table I)", 0.0, inf},
      {"m", ParamType::Number, 0.0025, "mass [kg] (Table I)", 0.0, inf},
      {"I", ParamType::Number, 1.25e-7, "inertia about the rolling axis [kg m^2] (Table I: m R^2 / 2)", 0.0, inf},
      {"J", ParamType::Number, 6.25e-8, "inertia about the vertical axis [kg m^2] (Table I: m R^2 / 4)", 0.0, inf},
  };
  d.make_system = [](const Parameters& p) {
    DiskParams dp;
    dp.circle = p.string("table") == "circle";
    dp.a = dp.circle ? p.number("radius") : p.number("a");
    dp.b = dp.circle ? p.number("radius") : p.number("b");
    dp.R = p.number("R");
    dp.m = p.number("m");
    dp.I = p.number("I");
    dp.J = p.number("J");
    for (const char* k : {"radius", "a", "b", "R", "m", "I", "J"})
      if (!(p.number(k) > 0.0)) throw InputError(p.where(k), std::string("parameter '") + k + "' of plugin 'vertical_rolling_disk' must be positive");
    if (dp.a == dp.b) dp.circle = true;  // an ellipse with a = b is a circle (closed-form locator)
    return std::make_unique<VerticalRollingDisk>(dp);
  };
  {  // Heading for the edge of the circular table (an impact within a second): xdot = R thetadot cos phi, ...
    const double R = 0.01, Om = 10.0, phi = kPi / 2;
    d.examples = {system_example("", {0, 0.15, 0, phi}, {R * Om * std::cos(phi), R * Om * std::sin(phi), Om, 0.5}, 0.1)};
  }
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
