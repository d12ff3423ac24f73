"""Where an element of an output came from (helpers/sim/microscope/provenance.py): the threads
that stored it, the line of the last store, and what its thread loaded before it, from global
and shared memory, named as the kernel names its arrays; nothing said where the trace kept too
few accesses. One module, traced once for the file. These run the simulator whatever backend is
chosen."""

import numpy as np
import pytest

from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.microscope.provenance import Load, provenance
from helpers.sim.microscope.trace import trace

SOURCE = r"""
__global__ void halved(const float *a, const float *b, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a[i] * b[i / 2];
}
__global__ void mirrored(const float *in, float *out) {
    __shared__ float s[64];
    s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}
__global__ void summed(const float *in, float *out) {
    float sum = 0.0f;
    for (int k = 0; k < 8; k++)
        sum += in[8 * threadIdx.x + k];
    out[threadIdx.x] = sum;
    out[0] = sum;
}
"""
HALVED, MIRRORED_STORE, MIRRORED_LOAD, SUMMED_LOAD, SUMMED_LAST = 4, 10, 8, 15, 17  # their lines


@pytest.fixture(scope="module")
def launches():
    mod = SourceModule(SOURCE)
    a = gpuarray.to_gpu(np.arange(256, dtype=np.float32))
    b, out = a.copy(), gpuarray.zeros(256, np.float32)
    with trace(accesses=1 << 16) as t:
        mod.get_function("halved")(a, b, out, block=(64, 1, 1), grid=(4, 1))
        mod.get_function("mirrored")(a, out, block=(64, 1, 1), grid=(2, 1))
        mod.get_function("summed")(a, out, block=(4, 1, 1))
    with trace(accesses=100) as few:
        mod.get_function("halved")(a, b, out, block=(64, 1, 1), grid=(4, 1))
    return t.launches + few.launches


def test_a_store_names_its_thread_line_and_the_elements_it_loaded(launches):
    origin = provenance(launches[0], "out", 130)
    assert origin.stores == ((2, 2),) and origin.line == HALVED
    assert origin.loads == (Load("a", 130, False, HALVED), Load("b", 65, False, HALVED))


def test_loads_of_shared_memory_are_named_by_the_shared_array(launches):
    origin = provenance(launches[1], "out", 64 + 5)
    assert origin.stores == ((1, 5),) and origin.line == MIRRORED_STORE
    assert origin.loads == (Load("in", 64 + 5, False, MIRRORED_LOAD),
                            Load("s", 58, True, MIRRORED_STORE))


def test_an_element_stored_several_times_names_every_store_and_the_last_ones_loads(launches):
    origin = provenance(launches[2], "out", 0)
    assert origin.stores == ((0, 0), (0, 0), (0, 1), (0, 2), (0, 3))
    assert origin.line == SUMMED_LAST
    assert [load.index for load in origin.loads] == list(range(24, 32))
    assert {load.line for load in origin.loads} == {SUMMED_LOAD}


def test_an_element_no_thread_stored_has_no_stores(launches):
    assert provenance(launches[2], "out", 200).stores == ()


def test_nothing_is_said_for_an_array_the_kernel_has_not_or_a_trace_that_kept_too_few(launches):
    assert provenance(launches[0], "c", 0) is None
    assert provenance(launches[3], "out", 130) is None
