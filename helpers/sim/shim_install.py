"""Putting the simulator's `pycuda` package (shim/) first on sys.path, where no working PyCUDA
and GPU are found; used by `import helpers.sim.as_pycuda` and `python -m helpers.sim`."""

import os
import sys
from pathlib import Path

SHIM_DIR = Path(__file__).resolve().parent / "shim"


def install(quiet=False):
    """Make `import pycuda` work; returns the backend ('pycuda' or 'simulator')."""
    from helpers import backend
    if backend.BACKEND == "pycuda":
        return "pycuda"
    # A PyCUDA that imported but found no GPU may have left modules behind: forget them.
    for name in [m for m in sys.modules if m == "pycuda" or m.startswith("pycuda.")]:
        del sys.modules[name]
    if str(SHIM_DIR) not in sys.path:
        sys.path.insert(0, str(SHIM_DIR))
    if not quiet:
        print(f"pycuda: the course's CPU simulator ({backend.REASON})", file=sys.stderr)
    return "simulator"


def export_to_children():
    """Let Python processes started from this one import the same pycuda."""
    if str(SHIM_DIR) in sys.path:
        paths = [str(SHIM_DIR), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        os.environ["CUDA_COURSE_BACKEND"] = "simulator"

