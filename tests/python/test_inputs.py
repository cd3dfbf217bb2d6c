"""Inputs from Python (issue 30 item 2): a table given as numpy arrays drives the snakeboard exactly
as the same table given to the command line in JSON; simulate() records it and refuses a run the
table does not cover; describe() lists the inputs with their unit and presets."""
import numpy as np
import pytest

from conftest import cli_run, read_csv, write_study

Q0 = [1.5707963267948966, 1.0471975511965976, 0.0, 0.0, 0.0]
V0 = [2.5, -0.02, -1.8035254037844384, 1.0412658773652743, 0.0]
H, T = 0.01, 1.0
TIMES = np.linspace(0.0, 1.0, 11)
VALUES = np.cos(3.0 * TIMES)  # an arbitrary smooth torque


def test_numpy_table_equals_the_cli_json_table(dalembert, tmp_path):
    params = {"u_phi": {"t": TIMES, "value": VALUES, "interpolation": "cubic"}}
    board = dalembert.system("snakeboard", params)
    rk4 = dalembert.integrator("rk4", board)
    s = board.state(Q0, V0)
    df = dalembert.simulate(board, rk4, s, H, T, observers=["trajectory"])
    assert list(df.columns)[-1] == "u_phi"  # the given input is recorded
    at_nodes = df[np.isclose(df["t"] * 10, np.round(df["t"] * 10), atol=1e-9)]
    assert np.allclose(at_nodes["u_phi"].to_numpy(), np.cos(3.0 * at_nodes["t"].to_numpy()), rtol=0, atol=1e-15)

    study = {"name": "py_inputs", "kind": "trajectory",
             "system": {"plugin": "snakeboard",
                        "params": {"u_phi": {"t": TIMES.tolist(), "value": VALUES.tolist(), "interpolation": "cubic"}}},
             "initial": {"q": Q0, "v": V0}, "h": H, "T": T,
             "integrators": [{"label": "RK4", "plugin": "rk4"}], "observers": ["trajectory"]}
    folder = cli_run(write_study(tmp_path, study), tmp_path / "run")
    cli = read_csv(folder / "trajectory_RK4.csv")
    assert list(cli.columns) == list(df.columns)
    assert (cli.to_numpy() == df.to_numpy()).all()  # to the bit: the same signal, the same steps


def test_simulate_refuses_a_run_the_table_does_not_cover(dalembert):
    board = dalembert.system("snakeboard", {"u_psi": {"t": np.array([0.0, 0.5]), "value": np.array([1.0, 1.0])}})
    rk4 = dalembert.integrator("rk4", board)
    s = board.state(Q0, V0)
    with pytest.raises(dalembert.InputError, match=r"input 'u_psi'.*table over \[0, 0.5\].*covers \[0, 1\]"):
        dalembert.simulate(board, rk4, s, H, T)
    assert s.t == 0.0


def test_bad_numpy_table_is_refused_naming_it(dalembert):
    with pytest.raises(dalembert.InputError, match=r"u_psi.*t\[1\] = 0 follows t\[0\] = 1"):
        dalembert.system("snakeboard", {"u_psi": {"t": np.array([1.0, 0.0]), "value": np.zeros(2)}})


def test_describe_lists_inputs_with_unit_and_presets(dalembert):
    d = dalembert.describe("snakeboard")
    params = d["parameters"] if isinstance(d, dict) else d
    (u,) = [p for p in params if p["name"] == "u_psi"]
    assert u["type"] == "input signal" and u["unit"] == "N m"
    assert [p["name"] for p in u["presets"]] == ["seed_001"]
