"""Issue 26: integer parameters are checked as integers by the framework (Parameters), so the Python
module refuses binder_torus n = 1e19, 2^63, 2^64 or 1e300 -- which crashed the interpreter with
SIGSEGV in the plugin's constructor -- and n = 4294967299, which built 3 spheres."""
import pytest


@pytest.mark.parametrize("n", [1e19, 2**63, 2**64, 1e300, 4294967299])
def test_binder_torus_n_beyond_its_range_raises(dalembert, n):
    with pytest.raises(Exception, match=r"parameter 'n' of plugin 'binder_torus' must lie in \[3, 100000\]"):
        dalembert.system("binder_torus", {"n": n})


def test_binder_torus_n_in_range_builds_that_many_spheres(dalembert):
    assert len(dalembert.system("binder_torus", {"n": 12}).q_names) == 7 * 12
