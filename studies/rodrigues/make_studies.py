#!/usr/bin/env python3
"""Writes the seed-003 study files of this folder (spec 003 §5). The torus studies carry the full
initial state (80 spheres: q = (x, y, z, qw, qx, qy, qz), v = (vx, vy, vz, Wx, Wy, Wz) per sphere),
so they are generated: run `python3 make_studies.py` after changing a set-up here."""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = "../shared/specs/003_rodrigues_variational.md"
SEED = "003 (Baker & Gonzalez, explicit variational integrator in rescaled Rodrigues parameters)"
MAPS = {"R23": "rodrigues_23", "R25": "rodrigues_25", "C27": "campello_27"}


def write(name, study):
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(study, f, indent=1)
        f.write("\n")


def pendulum_ic():
    a = 3 * math.pi / 8  # alpha(0) = 2 tan(3 pi/8) e2 (42)
    return {"q": [math.cos(a), 0.0, math.sin(a), 0.0], "v": [0.2, 0.0, 0.2]}


def torus_ic(n=80, Dt=3.0, gap=0.1, tilt_deg=0.0, v0=1.0):
    pi = math.pi
    Dp = Dt * math.sin(pi / n)
    xc = Dt / 2 + Dp / 2 + gap
    t = tilt_deg * pi / 180
    q, v = [], []
    for i in range(n):
        a = 2 * pi * i / n
        r = [Dt / 2 * math.cos(a), Dt / 2 * math.sin(a), 0.0]
        if tilt_deg != 0.0:  # rotation about e2
            r = [math.cos(t) * r[0] + math.sin(t) * r[2], r[1], -math.sin(t) * r[0] + math.cos(t) * r[2]]
        q += [xc + r[0], r[1], r[2], 1.0, 0.0, 0.0, 0.0]
        v += [-v0, 0.0, 0.0, 0.0, 0.0, 0.0]
    return {"q": q, "v": v}


# ---- Fig. 1: the 3D pendulum -------------------------------------------------------------------
ladder = [0.1 / 2 ** j for j in range(9)]
write("fig1_pendulum", {
    "name": "fig1_pendulum",
    "description": "Seed 003 Fig. 1 (i)-(ii): E(t)-error (38) and q(t)-error (37) of maps (23), (25), (27) on the 3D pendulum, "
                   "t_N = 10, h = 0.1/2^j (j = 0..8), trapezoid quadrature, reference = the system's exact (fine RK4) solution "
                   "on the same grid. The summaries E_error_38 and q_error_37 of each task are the figure's points.",
    "seed": SEED + ", Sec 3, Fig 1; spec 003 §4a, §5, claims 7-9",
    "kind": "trajectory",
    "system": {"plugin": "pendulum_3d"},
    "initial": pendulum_ic(),
    "h": 0.1, "T": 10, "record_every": 100000,
    "integrators": [{"label": f"{lab}_j{j}", "plugin": p, "h": h} for lab, p in MAPS.items() for j, h in enumerate(ladder)],
    "observers": [{"plugin": "rrp_error_measures", "params": {"reference": True, "track_diagnostics": False}}],
    "figures": [{"name": "fig1_" + key, "type": "summary", "y": key, "fit": 5,
                 "title": f"3D pendulum, t_N = 10: {key} (seed 003 Fig. 1)"}
                for key in ("E_error_38", "q_error_37", "true_H1_error")],
    "claims": {"source": "spec 003 claims 7-9", "slopes_over_5_finest": {"R23": {"E": 2.0, "q": 1.0}, "R25": {"E": 2.0, "q": 1.0},
                                                                          "C27": {"E": 1.0, "q": 0.5}},
               "at_h_0.0125": {"R23": {"E": 6.907e-5, "q": 8.772e-4}, "R25": {"E": 7.883e-6, "q": 3.762e-3},
                               "C27": {"E": 6.943e-3, "q": 2.805e-2}}},
})

write("fig1_pendulum_endpoint", {
    "name": "fig1_pendulum_endpoint",
    "description": "Seed 003, pendulum: convergence audit of the declared orders with the framework's end-point error "
                   "|(q,v)(10) - exact|_inf (quaternion and spatial Omega), h = 0.1/2^j, j = 4..8.",
    "seed": SEED + "; spec 003 claim 8 (end-point slope in [1.9, 2.1]) and claim 9",
    "kind": "convergence",
    "system": {"plugin": "pendulum_3d"},
    "initial": pendulum_ic(),
    "h": ladder[4:], "T": 10, "reference": "exact", "order_tolerance": 0.15,
    "integrators": [{"label": "R21", "plugin": "rodrigues_21"}, {"label": "R23", "plugin": "rodrigues_23"},
                    {"label": "R25", "plugin": "rodrigues_25"}, {"label": "C27", "plugin": "campello_27"},
                    {"label": "C30", "plugin": "campello_30"}],
    "figures": [{"name": "fig1_endpoint", "type": "convergence", "y": "error_qv",
                 "title": "3D pendulum: end-point error at t = 10", "ylabel": "|(q,v)(10) - exact|_inf"}],
    "claims": {"source": "spec 003 claims 8, 9", "orders": {"R21": 2, "R23": 2, "R25": 2, "C27": 1, "C30": 1}},
})

write("fig1_pendulum_invariants", {
    "name": "fig1_pendulum_invariants",
    "description": "Seed 003 Fig. 1 (iii)-(iv): R rho0 . Omega and ||R rho0|| (and e3 . Omega, E - E0) over 1e5 steps, h = 0.01, "
                   "t in [0, 1000], alpha storage. Summaries max_abs_* / max_dev_* are over every step.",
    "seed": SEED + ", Fig 1; spec 003 claims 10, 11",
    "kind": "trajectory",
    "system": {"plugin": "pendulum_3d"},
    "initial": pendulum_ic(),
    "h": 0.01, "T": 1000, "record_every": 100,
    "integrators": [{"label": lab, "plugin": p} for lab, p in MAPS.items()],
    "observers": ["energy_error", "diagnostics", {"plugin": "rrp_error_measures", "params": {"track_diagnostics": True}}],
    "figures": [
        {"name": "fig1_invariants", "type": "timeseries", "title": "3D pendulum, h = 0.01 (seed 003 Fig. 1 iii-iv)",
         "panels": [{"y": "Rrho0_dot_Omega", "ylabel": "R rho0 . Omega"},
                    {"y": "norm_Rrho0_minus_1", "ylabel": "||R rho0|| - 1"},
                    {"y": "energy_error", "ylabel": "E - E0"}]},
        {"name": "fig1_angle", "type": "timeseries", "y": "angle", "ylabel": "rotation angle (approaches pi)",
         "title": "3D pendulum: rotation angle"}],
    "claims": {"source": "spec 003 claims 10, 11", "max_abs_Rrho0_dot_Omega": 1e-12, "max_abs_norm_Rrho0_minus_1": 2e-15,
               "max_dev_e3_dot_Omega": 1e-14, "max_abs_energy_error": {"R23": 1e-4, "R25": 1e-5}},
})

# ---- Figs. 3-7: the binder torus ---------------------------------------------------------------
ENERGIES = ["KE_t", "KE_r", "U_m", "U_s", "U_a", "U_pp", "U_pw", "E"]
write("fig3_torus", {
    "name": "fig3_torus",
    "description": "Seed 003 Fig. 3: snapshots of the 80-sphere binder torus hitting the wall at v0 = 1 (map (25), h = 1e-3, "
                   "t_N = 35; gap 0.1, in-plane ring). The ring flattens into a D against the wall and rebounds.",
    "seed": SEED + ", Sec 4, Fig 3; spec 003 §4b, §5 (A16, A18)",
    "kind": "trajectory",
    "system": {"plugin": "binder_torus"},
    "initial": torus_ic(),
    "h": 1e-3, "T": 35, "record_every": 50,
    "integrators": [{"label": "R25", "plugin": "rodrigues_25"}],
    "observers": ["trajectory", "diagnostics"],
    "figures": [
        {"name": "fig3_snapshots_impact", "type": "snapshots", "times": [0, 0.1, 0.6, 1.2, 1.8, 2.4],
         "radius": 0.0588897, "wall_x": 0.0, "title": "Binder torus, map (25), h = 1e-3: impact (seed 003 Fig. 3)"},
        {"name": "fig3_snapshots", "type": "snapshot_panels",
         "panels": [{"t": t} for t in [0, 0.1, 0.6, 1.2, 1.8, 2.4, 5, 15, 25, 35]], "columns": 5,
         "radius": 0.0588897, "wall_x": 0.0,
         "title": "Binder torus hitting the wall x = 0, map (25), h = 1e-3, t_N = 35: sequence of states (seed 003 Fig. 3)"},
        {"name": "fig3_centroid", "type": "timeseries", "y": "centroid_x", "ylabel": "centroid x",
         "title": "Torus centroid (drifts away at ~0.51 v0 after the rebound)"}],
})

write("fig4_torus_energy", {
    "name": "fig4_torus_energy",
    "description": "Seed 003 Fig. 4: energies by kind of the binder torus, map (25), h = 1e-3, t in [0, 25].",
    "seed": SEED + ", Fig 4; spec 003 claim 16",
    "kind": "trajectory",
    "system": {"plugin": "binder_torus"},
    "initial": torus_ic(),
    "h": 1e-3, "T": 25, "record_every": 10,
    "integrators": [{"label": "R25", "plugin": "rodrigues_25"}],
    "observers": ["energy_error", "diagnostics"],
    "figures": [
        {"name": "fig4_energies", "type": "overlay",
         "title": "Binder torus energies, map (25), h = 1e-3, t_N = 25 (seed 003 Fig. 4)",
         "panels": [{"y": ENERGIES, "ylabel": "energy",
                     "labels": ["KE_t = m|v|^2/2", "KE_r = J|w|^2/2", "U_m (bending)", "U_s (shear)", "U_a (axial)",
                                "U_pp (particle-particle)", "U_pw (particle-wall)", "E (total)"], "legend": "upper right"}]},
        {"name": "fig4_energy_error", "type": "timeseries", "y": "energy_error", "ylabel": "E - 40"}],
    "claims": {"source": "spec 003 claim 16", "max_abs_energy_error": 0.15, "initial_energy": 40},
})

write("fig5_torus_longtime", {
    "name": "fig5_torus_longtime",
    "description": "Seed 003 Fig. 5, at the STABLE step h = 1e-3 (the paper's h = 1e-2 is unstable for the literal stiffnesses: "
                   "h omega_max ~ 2.4 axial and stiffer wall contact; maps (25) and (27) overflow at t ~ 0.11; spec A17, claim 17). "
                   "Total energy of maps (25) and (27), t in [0, 500] (5e5 steps x 80 bodies each).",
    "seed": SEED + ", Fig 5; spec 003 A17, A25",
    "kind": "trajectory",
    "system": {"plugin": "binder_torus"},
    "initial": torus_ic(),
    "h": 1e-3, "T": 500, "record_every": 500,
    "integrators": [{"label": "R25", "plugin": "rodrigues_25"}, {"label": "C27", "plugin": "campello_27"}],
    "observers": ["energy_error"],
    "figures": [{"name": "fig5_energy", "type": "timeseries", "y": "energy", "ylabel": "E",
                 "title": "Binder torus, h = 1e-3 (paper: 1e-2, unstable), t_N = 500 (seed 003 Fig. 5)"}],
})

write("fig6_torus_momenta", {
    "name": "fig6_torus_momenta",
    "description": "Seed 003 Fig. 6: linear momentum P, spin sum J_i Omega_i and the discrete wall-impulse balance "
                   "P_k - P_0 - sum impulses of maps (23), (25), (27), h = 1e-3, t in [0, 25]. The summaries "
                   "max_abs_P_y, max_abs_P_z, max_abs_S_* are over every step.",
    "seed": SEED + ", Fig 6; spec 003 claim 15, A7, A19",
    "kind": "trajectory",
    "system": {"plugin": "binder_torus"},
    "initial": torus_ic(),
    "h": 1e-3, "T": 25, "record_every": 10,
    "integrators": [{"label": lab, "plugin": p} for lab, p in MAPS.items()],
    "observers": ["diagnostics", "discrete_quantities", {"plugin": "rrp_error_measures", "params": {"track_diagnostics": True}}],
    "figures": [
        {"name": "fig6_linear", "type": "timeseries", "title": "Binder torus: linear momentum (seed 003 Fig. 6)",
         "panels": [{"y": "P_x", "ylabel": "P_x"}, {"y": "P_y", "ylabel": "P_y"}, {"y": "P_z", "ylabel": "P_z"},
                    {"y": "impulse_balance_x", "ylabel": "P_x - P_x0 - wall impulse"}]},
        {"name": "fig6_angular", "type": "timeseries", "title": "Binder torus: sum J_i Omega_i (seed 003 Fig. 6)",
         "panels": [{"y": "S_x", "ylabel": "sum J Omega_x"}, {"y": "S_y", "ylabel": "sum J Omega_y"},
                    {"y": "S_z", "ylabel": "sum J Omega_z"}]}],
    "claims": {"source": "spec 003 claim 15", "max_abs": 1e-12},
})

fig7_h = [5e-4, 2.5e-4, 1.25e-4, 6.25e-5]
write("fig7_torus_convergence", {
    "name": "fig7_torus_convergence",
    "description": "Seed 003 Fig. 7 in the spec's robust form (A24): E(t)-error (38) of maps (23), (25), (27) at t_N = 1, "
                   "h = 5e-4 ... 6.25e-5 (at t_N = 10 the torus is chaotic and trajectory errors do not converge).",
    "seed": SEED + ", Fig 7; spec 003 claim 18, A24",
    "kind": "trajectory",
    "system": {"plugin": "binder_torus"},
    "initial": torus_ic(),
    "h": 5e-4, "T": 1, "record_every": 1000000,
    "integrators": [{"label": f"{lab}_h{k}", "plugin": p, "h": h} for lab, p in MAPS.items() for k, h in enumerate(fig7_h)],
    "observers": [{"plugin": "rrp_error_measures", "params": {"track_diagnostics": False}}],
    "figures": [{"name": "fig7_E_error_38", "type": "summary", "y": "E_error_38", "fit": 4,
                 "title": "Binder torus, t_N = 1: E-error (seed 003 Fig. 7)"}],
    "claims": {"source": "spec 003 claim 18", "E_slope_min": {"R23": 1.6, "R25": 1.6}, "E_slope_range": {"C27": [0.85, 1.2]}},
})

fig7_h10 = [1e-3, 5e-4, 2.5e-4, 1.25e-4]
write("fig7_torus_tN10", {
    "name": "fig7_torus_tN10",
    "description": "Seed 003 Fig. 7 at the paper's t_N = 10: (i) E(t)-error (38) and (ii) q(t)-error (37) of maps (23), (25), "
                   "(27) for h = 1e-3 ... 1.25e-4, the q-error against a fine reference run (map (23) at h = 1.25e-4/8, "
                   "spec A8). At t_N = 10 the torus is chaotic (spec A24): (37) compares H1 norms, not trajectories, so it "
                   "is small but need not fall like a power of h; see fig7_torus_convergence (t_N = 1) for the robust form.",
    "seed": SEED + ", Fig 7; spec 003 A8, A24",
    "kind": "trajectory",
    "system": {"plugin": "binder_torus"},
    "initial": torus_ic(),
    "h": 1e-3, "T": 10, "record_every": 1000000,
    "integrators": [{"label": f"{lab}_h{k}", "plugin": p, "h": h} for lab, p in MAPS.items() for k, h in enumerate(fig7_h10)]
                   + [{"label": "ref", "plugin": "rodrigues_23", "h": fig7_h10[-1] / 8}],
    "observers": [{"plugin": "rrp_error_measures", "params": {"track_diagnostics": False}}],
    "figures": [{"name": "fig7_tN10", "type": "summary_panels",
                 "title": "Binder torus, t_N = 10 (seed 003 Fig. 7): (i) E(t)-error, (ii) q(t)-error against a fine reference run",
                 "panels": [{"y": "E_error_38", "ylabel": "E(t)-error (38)", "fit": 3, "title": "(i) energy, H0(0, 10)"},
                            {"q_error_from": "H1_norm2", "reference": "ref", "slope": False,
                             "title": "(ii) H1(0, 10) vs map (23) at h = 1.5625e-5: no rate (chaotic, spec A24)"}]}],
})

write("torus_tilted", {
    "name": "torus_tilted",
    "description": "Seed 003, tilted (3D) torus variant: the ring rotated 30 deg about e2 (oblique impact), maps (23), (25), "
                   "h = 1e-3, t_N = 10 (spec claim 21).",
    "seed": SEED + "; spec 003 §4b optional 3D variant, claim 21",
    "kind": "trajectory",
    "system": {"plugin": "binder_torus", "params": {"tilt_deg": 30}},
    "initial": torus_ic(tilt_deg=30.0),
    "h": 1e-3, "T": 10, "record_every": 10,
    "integrators": [{"label": "R23", "plugin": "rodrigues_23"}, {"label": "R25", "plugin": "rodrigues_25"}],
    "observers": ["energy_error", "diagnostics", "discrete_quantities",
                  {"plugin": "rrp_error_measures", "params": {"track_diagnostics": True}}],
    "figures": [{"name": "tilted_energy", "type": "timeseries", "y": "energy_error", "ylabel": "E - 40",
                 "title": "Tilted binder torus (seed 003, spec claim 21)"}],
    "claims": {"source": "spec 003 claim 21", "max_abs_energy_error": {"R23": 0.034, "R25": 0.054}},
})

write("bench_torus_500", {
    "name": "bench_torus_500",
    "description": "Benchmark (not a figure): the t_N = 500, h = 1e-3 torus run of map (25) (5e5 steps x 80 bodies) with no "
                   "observers, one core: `dalembert run bench_torus_500.json --out DIR --threads 1`; the manifest's wall_time_s is the measure.",
    "seed": SEED + "; spec 003 A17 (performance target of issue 7)",
    "kind": "trajectory",
    "system": {"plugin": "binder_torus"},
    "initial": torus_ic(),
    "h": 1e-3, "T": 500, "record_every": 500000,
    "integrators": [{"label": "R25", "plugin": "rodrigues_25"}],
    "observers": [],
    "figures": [],
})
