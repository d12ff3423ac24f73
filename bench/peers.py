"""The other libraries that run the course kernels' operations: CuPy and PyTorch on a GPU, and
Numba's CUDA simulator (``bench/numba_sim.py``, run in a subprocess) on the CPU.

A peer that is not installed, or finds no device, is reported as such by the caller, never
silently left out.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench import BENCH
from bench.reference import ArrayLibrary


def cupy_peer():
    import cupy as cp
    if cp.cuda.runtime.getDeviceCount() == 0:
        raise RuntimeError("no device")
    return ArrayLibrary("CuPy", cp, put=cp.asarray, get=cp.asnumpy,
                        sync=lambda: cp.cuda.Device().synchronize())


def torch_peer():
    """PyTorch on the GPU; a bfloat16 result comes back as float32 (NumPy has no bfloat16)."""
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False")
    return ArrayLibrary("PyTorch", torch,
                        put=lambda a: torch.from_numpy(np.ascontiguousarray(a)).cuda(),
                        get=lambda t: (t.float() if t.dtype == torch.bfloat16 else t).cpu().numpy(),
                        sync=torch.cuda.synchronize,
                        cast=lambda t, dtype: t.to(getattr(torch, dtype)))


GPU_PEERS = {"CuPy": cupy_peer, "PyTorch": torch_peer}


def free_memory(peers):
    """Give the device memory that CuPy's and PyTorch's pools keep back to the device."""
    for p in peers:
        if p.name == "CuPy":
            p.xp.get_default_memory_pool().free_all_blocks()
        elif p.name == "PyTorch":
            p.xp.cuda.empty_cache()


class NumbaSimFailed(Exception):
    """Numba is missing, or bench/numba_sim.py failed; the message says which."""


def numba_simulator(inputs, repeat=1):
    """Run bench/numba_sim.py on Numba's CUDA simulator, in a subprocess (NUMBA_ENABLE_CUDASIM=1
    must be set before numba.cuda is imported), ``repeat`` times.

    ``inputs``: operation -> its input arrays (the kernel's arguments, as numba_sim.py's
    ``setup_<op>`` takes them). Returns (operation -> ms of each timed launch, operation -> the
    output of the last). Raises NumbaSimFailed."""
    if importlib.util.find_spec("numba") is None:
        raise NumbaSimFailed("not installed")
    with tempfile.TemporaryDirectory(prefix="bench-numba-") as tmp:
        np.savez(Path(tmp) / "in.npz", **{f"{op}.{k}": np.asarray(a)
                                          for op, args in inputs.items()
                                          for k, a in enumerate(args)})
        times = {op: [] for op in inputs}
        for _ in range(repeat):
            proc = subprocess.run([sys.executable, str(BENCH / "numba_sim.py"), tmp],
                                  env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"),
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise NumbaSimFailed("bench/numba_sim.py failed:\n" + proc.stderr[-2000:])
            for op, ms in json.loads((Path(tmp) / "times.json").read_text()).items():
                times[op].append(ms)
        with np.load(Path(tmp) / "out.npz") as outs:
            return times, {op: outs[op] for op in inputs}
