"""dalembert.plugins() lists what `dalembert list` lists; dalembert.describe() holds what
`dalembert describe` prints (both come from the same framework function)."""
import pytest

from conftest import cli


def cli_list():
    """{kind: [names]} from `dalembert list`."""
    out, kind = {}, None
    for line in cli("list").stdout.splitlines():
        if not line.startswith(" "):
            kind = line.rstrip(":s")
            out[kind] = []
        elif line.strip() != "(none)":
            out[kind].append(line.split()[0])
    return out


def test_plugins_equal_the_cli_list(dalembert):
    df = dalembert.plugins()
    assert list(df.columns) == ["name", "kind", "version", "summary", "seed", "file"]
    listed = cli_list()
    assert set(listed) == {"system", "integrator", "impact", "observer", "sampler"}
    for kind, names in listed.items():
        assert df[df["kind"] == kind]["name"].tolist() == names, kind
    assert "chaplygin_sleigh" in listed["system"] and "gni" in listed["integrator"]


def test_describe_system(dalembert):
    d = dalembert.describe("chaplygin_sleigh")
    text = cli("describe", "chaplygin_sleigh").stdout
    assert d["kind"] == "system" and d["name"] == "chaplygin_sleigh"
    assert f"version {d['version']})" in text and d["summary"] in text
    inst = d["instance"]
    assert f"    q ({len(inst['q'])}): {', '.join(inst['q'])}" in text
    assert f"    n = {inst['n']}, r = {inst['r']}" in text
    assert (inst["n"], inst["r"]) == (3, 1)  # the sleigh: 3 coordinates, 1 nonholonomic constraint
    for p in d["parameters"]:
        assert f"    {p['name']:<26} {p['type']:<8}" in text


def test_describe_integrator(dalembert):
    d = dalembert.describe("rk4")
    text = cli("describe", "rk4").stdout
    inst = d["instance"]
    assert inst["order"] == 4 and inst["explicit"] is True
    assert f"    binds to the systems: {', '.join(inst['binds_to'])}\n" in text
    assert "chaplygin_sleigh" in inst["binds_to"]


def test_describe_unknown_name_raises_the_cli_message(dalembert):
    r = cli("describe", "rk5", check=False)
    assert r.returncode == 1
    with pytest.raises(dalembert.InputError) as e:
        dalembert.describe("rk5")
    assert r.stderr.strip() == "error: " + str(e.value)
    assert "'rk5'" in str(e.value)
