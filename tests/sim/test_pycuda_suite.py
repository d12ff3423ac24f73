"""PyCUDA's own tutorial, examples and tests (from its source release) on the simulator.

tools/pycuda_suite.py runs them through `python -m helpers.sim` and counts what passes; this test
runs it and holds the simulator to its targets: every tutorial block and example that needs no
GPU-only feature passes, and at least 90% of test_driver.py's and test_gpuarray.py's tests that
need none. The pass counts are printed. On a GPU the same tool shows what real PyCUDA passes:
`python tools/pycuda_suite.py --sdist PATH` (see README).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.backend import BACKEND

ROOT = Path(__file__).resolve().parents[2]
TARGETS = {"tutorial": 100, "examples": 100, "test_driver.py": 90, "test_gpuarray.py": 90}


@pytest.mark.slow
@pytest.mark.skipif(BACKEND != "simulator",
                    reason="on a GPU, run `python tools/pycuda_suite.py` itself (README)")
def test_pycudas_own_material_passes_on_the_simulator(tmp_path, capsys):
    results = tmp_path / "results.json"
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "pycuda_suite.py"),
                           "--json", str(results)], capture_output=True, text=True,
                          timeout=1800)
    with capsys.disabled():
        print("\n" + proc.stdout + proc.stderr[-3000:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    parts = json.loads(results.read_text())["parts"]
    sys.path.insert(0, str(ROOT / "tools"))
    from pycuda_suite import summary
    for part, target in TARGETS.items():
        counts = summary(parts[part])
        assert counts["percent"] >= target, (part, counts)
        assert counts["counted"] > 0
