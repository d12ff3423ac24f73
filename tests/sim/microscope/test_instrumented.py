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


# A lane that never ends grew its warp's log without bound (2 GB in 2 s of a traced launch), and
# the cancel at the time limit could land inside the log's realloc, leaving it pointing at freed
# memory: the process crashed (include/sim_trace.h: make_room; sim_runtime.h: hold_cancel).
ENDLESS_IN_BLOCK_0 = r"""
__global__ void add_into(const float *x, float *y, int n) {
    int stride = blockIdx.x * blockDim.x;  // 0 in block 0: its first thread never moves on
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] += x[i];
}
"""


def _peak_rss_reset():
    """Resets the process's peak resident size (Linux's VmHWM); False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_rss_mib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


def test_an_endless_traced_launch_is_stopped_on_two_workers_with_its_memory_bounded():
    from helpers.sim.microscope.trace import trace

    if not _peak_rss_reset():
        pytest.skip("this system cannot reset a process's peak memory (/proc/self/clear_refs)")
    add_into = SourceModule(ENDLESS_IN_BLOCK_0).get_function("add_into")
    x, y = gpuarray.to_gpu(np.ones(4096, np.float32)), gpuarray.zeros(4096, np.float32)
    count = SourceModule(SOURCE + "// built before the launches are measured").get_function("count")
    before = _peak_rss_mib()
    for _ in range(3):
        with settings.changed(workers=2, time_limit=0.4), trace(accesses=0), \
                pytest.raises(errors.TimeLimitError):
            add_into(x, y, np.int32(4096), block=(128, 1, 1), grid=(32, 1))
    assert _peak_rss_mib() - before < 150  # the log held at 32 MiB a worker
    counted = gpuarray.zeros(32, np.int32)
    with trace() as t:  # the launches after it run and are traced as before
        count(counted, block=(32, 1, 1))
    assert counted.get().tolist() == [0] * 32 and t["count"].global_ld.requests == 2  # x[], bump


def test_a_lane_with_more_accesses_than_the_log_holds_is_counted_exactly():
    from helpers.sim.microscope.trace import trace

    many = SourceModule(r"""
    __global__ void many(const float *x, float *y, int n) {
        float s = 0;
        for (int k = 0; k < n; k++) s += x[k & 31];
        y[0] = s;
    }""").get_function("many")
    n = 3 << 20  # past the log's 2M entries (include/sim_trace.h: kLogCap)
    x, y = gpuarray.to_gpu(np.ones(32, np.float32)), gpuarray.zeros(1, np.float32)
    with trace(accesses=0) as t:
        many(x, y, np.int32(n), block=(1, 1, 1))
    assert (t["many"].global_ld.requests, t["many"].global_ld.sectors) == (n, n)
    assert y.get()[0] == n
