"""The wheel `make wheel` builds (named by RVALUE_WHEEL, as `make test-python` does): one abi3
wheel for every CPython from 3.9, which installs in a fresh venv without Rust and works there."""

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

WHEEL = os.environ.get("RVALUE_WHEEL")
pytestmark = pytest.mark.skipif(not WHEEL, reason="set RVALUE_WHEEL to a wheel of `make wheel`")

CHECK = r"""
import pickle, sys
import numpy as np
import rvalue_explorer as rx
print(rx.__file__)
d = np.load(sys.argv[1])
scores, labels = d["scores"], d["labels"]
cal = rx.calibrate(scores[:600], labels[:600])
cal.save(sys.argv[2])
again = rx.load(sys.argv[2])
assert np.array_equal(cal.predict(scores[600:]), again.predict(scores[600:]))
assert np.array_equal(cal.predict(scores[600:]), pickle.loads(pickle.dumps(cal)).predict(scores[600:]))
print("ok", rx.__version__)
"""


def test_the_wheel_is_abi3_for_cpython_3_9_and_later():
    name = Path(WHEEL).name
    assert "-cp39-abi3-" in name, name
    with zipfile.ZipFile(WHEEL) as z:
        names = z.namelist()
    assert any(n.endswith(".pyi") for n in names), "the stubs ship in the wheel"
    assert any(n.endswith(".abi3.so") for n in names), names


def test_the_wheel_installs_and_runs_in_a_fresh_venv_without_rust(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # No cargo or rustc on the PATH: installing a wheel compiles nothing.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", WHEEL], check=True, env=env)
    # numpy from this venv (installing it again would need the network): a .pth line puts this
    # venv's packages after the fresh venv's own, so the fresh copy of rvalue_explorer is the one
    # imported.
    fresh_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                check=True, capture_output=True, text=True).stdout.strip()
    Path(fresh_site, "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    assets = Path(__file__).resolve().parents[3] / "assets" / "digits_wbb.npz"
    done = subprocess.run([str(python), "-c", CHECK, str(assets), str(tmp_path / "cal.rvcal")],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    where, ok = done.stdout.splitlines()
    assert where.startswith(str(venv)), where
    assert ok.startswith("ok ")
