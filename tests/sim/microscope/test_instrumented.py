"""The instrumented build of a module (helpers/sim/microscope/instrumented.py): compiled only
when a launch is traced or checked, kept with its module, its report structs in step with the
library, and the learner's `__device__` and `__constant__` variables carried into it and back.
These run the simulator whatever backend is chosen."""

import numpy as np
import pytest

from helpers.sim import driver as drv, errors, gpuarray
from helpers.sim.compile.module import Module
from helpers.sim.compiler import SourceModule
from helpers.sim.microscope import instrumented
from helpers.sim.settings import settings

SOURCE = r"""
__device__ int calls;
__constant__ int bump;
__global__ void count(int *x) { x[threadIdx.x] += bump; if (threadIdx.x == 0) atomicAdd(&calls, 1); }
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(SOURCE)


def test_untraced_launches_never_build_the_instrumented_module(mod):
    fresh = SourceModule(SOURCE + "\n// another module\n")
    fresh.get_function("count")(gpuarray.zeros(32, np.int32), block=(32, 1, 1))
    assert not getattr(fresh.module, "_instrumented", None)


def test_the_build_is_made_once_a_kind_and_kept_with_its_module(mod):
    memory = instrumented.instrumented(mod.module)
    assert instrumented.instrumented(mod.module, "memory") is memory
    assert memory.module.path != mod.module.path and memory.plain is mod.module
    assert [s.line for s in memory.sites if s.kind == "load"]  # the learner's loads, with lines


def test_a_module_that_was_not_made_by_source_module_cannot_be_traced(mod):
    loaded = Module(mod.module.path)  # no source, no way to its instrumented build
    with pytest.raises(errors.LogicError, match="not made by SourceModule"):
        instrumented.instrumented(loaded)


def test_the_reports_layout_and_flags_are_the_ones_the_library_was_built_with(mod):
    """What a race report holds is read by hand-written mirrors (instrumented.Rec and friends): the
    instrumented library says its sizes and flag values, and they must agree."""
    lib = instrumented.instrumented(mod.module).module.lib
    for name, value in instrumented._MIRRORS.items():
        assert lib.sim_trace_abi_size(name.encode()) == value, name


def test_device_variables_reach_the_checked_build_and_come_back(mod):
    drv.memcpy_htod(mod.get_global("bump")[0], np.array([5], np.int32))
    x = gpuarray.zeros(32, np.int32)
    with settings.changed(racecheck=True):
        mod.get_function("count")(x, block=(32, 1, 1))
    calls = np.zeros(1, np.int32)
    drv.memcpy_dtoh(calls, mod.get_global("calls")[0])
    assert (x.get() == 5).all() and calls[0] == 1


def test_the_learners_macros_do_not_break_the_instrumented_build():
    src = r"""
    #define trace 0
    #define record 1
    #define site 2
    #define mask 3
    #define block 4
    #define thread 5
    #define T 32
    __global__ void k(float *out) {
        __shared__ float s[T];
        s[threadIdx.x] = threadIdx.x + trace + record + site + mask + block + thread;
        __syncthreads();
        __syncwarp();
        out[threadIdx.x] = s[T - 1 - threadIdx.x];
    }
    """
    from helpers.sim.microscope.trace import trace

    out = gpuarray.zeros(32, np.float32)
    with settings.changed(racecheck=True), trace() as t:
        SourceModule(src).get_function("k")(out, block=(32, 1, 1))
    assert np.array_equal(out.get(), np.arange(31, -1, -1) + 15)
    assert t["k"].shared_st.requests == 1
