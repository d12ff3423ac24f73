"""The stacks simulated threads run on (helpers/sim/machine/stacks.py): made once for each
worker and as many threads as the largest block seen, handed to every launch, fewer workers when
the system's memory mappings would not hold them all, and a thread's local arrays limited as a
GPU limits them. These run the simulator whatever backend is chosen."""

import ctypes
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.machine import mappings, stacks
from helpers.sim.settings import settings
from kernel_sources import REDUCE

ROOT = Path(__file__).resolve().parents[3]


def test_each_worker_gets_aligned_usable_stacks_handed_out_again_while_they_fit():
    firsts, granted = stacks.for_launch(3, 8)
    assert granted == 3 and all(first % stacks.STACK_BYTES == 0 for first in firsts)
    for first in firsts:  # the top STACK_USABLE bytes of each of the 8 slots are writable
        for slot in range(8):
            top = first + (slot + 1) * stacks.STACK_BYTES
            ctypes.memset(top - stacks.STACK_USABLE, 0x5A, stacks.STACK_USABLE)
    assert stacks.for_launch(3, 8) == (firsts, granted)  # no new mappings for the same ask
    more, granted = stacks.for_launch(3, 16)  # a larger block: each worker's stacks grow
    assert granted == 3 and all(stacks._pools[i].count >= 16 for i in range(3))


def test_stacks_take_at_most_half_of_the_systems_mappings(monkeypatch):
    count = 4
    monkeypatch.setattr(mappings, "limit", lambda: 2 * 2 * (2 * count + 1))  # room for 2 workers
    firsts, granted = stacks.for_launch(6, count)
    assert granted == 2 and len(firsts) == 2


@pytest.mark.parametrize("workers, threads", [(65, 256), (128, 64), (128, 1024)])
def test_more_workers_than_64_each_have_their_own_stacks(workers, threads):
    blocks = 8 * workers  # enough that workers 0 and 64 run blocks at the same time
    x = np.random.default_rng(workers).integers(0, 1000, blocks * threads).astype(np.int32)
    out = gpuarray.zeros(blocks, np.int32)
    f = SourceModule(REDUCE).get_function("block_sum")
    with settings.changed(workers=workers):
        for _ in range(2):
            f(gpuarray.to_gpu(x), out, block=(threads, 1, 1), grid=(blocks, 1), shared=4 * threads)
            assert np.array_equal(out.get(), x.reshape(blocks, threads).sum(1))


def test_local_arrays_far_beyond_a_gpus_512_kib_are_a_stack_overflow():
    """A thread's frame larger than its stack and the space below it: with barriers (a stack a
    thread) or without (one stack a worker), an error, never a write into someone else's memory."""
    code = textwrap.dedent("""
        import numpy as np
        from helpers.sim import driver as drv, gpuarray
        from helpers.sim.compiler import SourceModule
        for barrier in ("__syncthreads();", ""):
            src = ("__global__ void deep(float *out, int k) { float big[3000000]; " + barrier +
                   " for (int i = 0; i < 3000000; i++) big[i] = i * k;"
                   " out[threadIdx.x] = big[k + threadIdx.x]; }")
            try:
                SourceModule(src).get_function("deep")(gpuarray.zeros(4, np.float32),
                                                       np.int32(1), block=(4, 1, 1))
            except drv.LaunchError as err:
                print("error:", err.kind)
        print("alive")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["error:", "stack", "overflow", "error:", "stack", "overflow",
                                   "alive"], proc.stdout
