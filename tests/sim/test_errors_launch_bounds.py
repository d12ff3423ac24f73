"""errors_launch_bounds.py's LaunchBoundsError: a launch of more threads a block than the
kernel's __launch_bounds__ allows, which a GPU refuses. This file runs on whichever backend
helpers.backend chose: PyCUDA's LaunchError and MAX_THREADS_PER_BLOCK on a GPU, the simulator's
(with its fields) here."""

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray


def test_a_launch_past_the_kernels_launch_bounds_is_refused_and_its_attribute_is_the_bound():
    """__launch_bounds__(N) makes the kernel's MAX_THREADS_PER_BLOCK N, and a launch of more
    threads a block fails with a LaunchError ("too many resources requested for launch"), after
    which the context still works. The simulator once compiled the bound away and ran it."""
    mod = SourceModule("#define HALF 64\n"
                       "__global__ void __launch_bounds__(2 * HALF, 2) bounded(float *x) {\n"
                       "    x[threadIdx.x + blockDim.x * threadIdx.y] = 1.0f;\n}\n"
                       "__global__ void free_(float *x) { x[threadIdx.x] = 2.0f; }\n")
    bounded, free_ = mod.get_function("bounded"), mod.get_function("free_")
    attr = drv.function_attribute.MAX_THREADS_PER_BLOCK
    assert bounded.get_attribute(attr) == bounded.max_threads_per_block == 128
    assert free_.get_attribute(attr) == 1024
    x = gpuarray.zeros(1024, np.float32)
    for block in ((256, 1, 1), (16, 16, 1)):
        with pytest.raises(drv.LaunchError) as caught:
            bounded(x, block=block)
        if BACKEND == "simulator":   # the simulator's error carries the facts
            err = caught.value
            assert (err.kind, err.kernel, err.max_threads, err.threads, err.block_dim) == \
                ("launch bounds", "bounded", 128, 256, block)
    bounded(x, block=(128, 1, 1))
    free_(x[128:], block=(896, 1, 1))
    assert x.get().tolist() == [1.0] * 128 + [2.0] * 896
