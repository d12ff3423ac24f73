"""The simulator's memory trace (helpers.sim.microscope.trace): what Nsight Compute would count on a GPU.

Each test has an access pattern whose counts a GPU's profiler gives exactly (requests per
warp-instruction, distinct 32-byte sectors per request, shared-memory wavefronts over 32 banks of
4 bytes). These run the simulator whatever backend is chosen.
"""

import numpy as np
import pytest

from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings
from helpers.sim.microscope.trace import trace

GLOBAL = r"""
__global__ void copy(const float *in, float *out) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[i]; }
__global__ void strided(const float *in, float *out) { int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = in[32 * i]; }
__global__ void broadcast(const float *in, float *out) { out[threadIdx.x] = in[0]; }
__global__ void bytes3(const unsigned char *in, unsigned char *out) {
    int i = threadIdx.x;
    out[i] = in[3 * i] + in[3 * i + 1] + in[3 * i + 2];
}
__global__ void wide(const uint4 *in, uint4 *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void triple(const float3 *in, float *out) { float3 v = in[threadIdx.x]; out[threadIdx.x] = v.x + v.y + v.z; }
__global__ void count(int *n) { atomicAdd(n, 1); }
__global__ void wild(float *out, int k) { out[threadIdx.x * k] = 1.0f; }
__global__ void loop(float *out) {
    float v = 0.0f;
    for (int i = 0; i < threadIdx.x; i++) v += i;
    out[threadIdx.x] = v;
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(GLOBAL)


def _traced(fn, *args, **launch):
    with trace() as t:
        fn(*args, **launch)
    return t[fn.name]


def test_a_coalesced_warp_needs_4_sectors_a_request_a_strided_one_32(mod):
    a, b = gpuarray.to_gpu(np.arange(64 * 32 * 64, dtype=np.float32)), gpuarray.zeros(4096, np.float32)
    copy = _traced(mod.get_function("copy"), a, b, block=(64, 1, 1), grid=(64, 1))
    assert copy.global_ld.requests == 128 and copy.global_ld.sectors_per_request == 4
    assert copy.global_st.requests == 128 and copy.global_st.sectors_per_request == 4
    strided = _traced(mod.get_function("strided"), a, b, block=(64, 1, 1), grid=(64, 1))
    assert strided.global_ld.sectors_per_request == 32
    assert strided.global_ld.bytes == 4096 * 4 and strided.global_ld.sectors == 128 * 32


def test_lanes_reading_one_word_share_a_sector(mod):
    a, b = gpuarray.to_gpu(np.ones(32, np.float32)), gpuarray.zeros(32, np.float32)
    stats = _traced(mod.get_function("broadcast"), a, b, block=(32, 1, 1))
    assert (stats.global_ld.requests, stats.global_ld.sectors) == (1, 1)


def test_byte_loads_three_apart_and_16_byte_loads(mod):
    a, b = gpuarray.to_gpu(np.arange(96, dtype=np.uint8)), gpuarray.zeros(32, np.uint8)
    stats = _traced(mod.get_function("bytes3"), a, b, block=(32, 1, 1))
    assert stats.global_ld.requests == 3 and stats.global_ld.sectors_per_request == 3
    assert stats.global_st.sectors_per_request == 1
    v, w = gpuarray.to_gpu(np.arange(128, dtype=np.uint32)), gpuarray.zeros(128, np.uint32)
    stats = _traced(mod.get_function("wide"), v, w, block=(32, 1, 1))
    # a uint4 is one 16-byte load a lane, as on a GPU: one request, 512 bytes, 16 sectors
    assert (stats.global_ld.requests, stats.global_ld.sectors) == (1, 16)


def test_a_struct_of_three_floats_is_three_loads_as_on_a_gpu(mod):
    a, b = gpuarray.to_gpu(np.ones(96, np.float32)), gpuarray.zeros(32, np.float32)
    stats = _traced(mod.get_function("triple"), a, b, block=(32, 1, 1))
    # float3 is aligned to 4 bytes: three 4-byte loads a lane, each touching 12 of 384 bytes
    assert stats.global_ld.requests == 3 and stats.global_ld.sectors == 3 * 12


def test_sectors_are_counted_from_the_start_of_the_allocation(mod):
    # 48 bytes: the simulator aligns this allocation to 16 bytes only, a GPU to 256. 12 lanes
    # reading 12 floats from the start touch 2 sectors on a GPU, not 3.
    a, b = gpuarray.to_gpu(np.ones(12, np.float32)), gpuarray.zeros(12, np.float32)
    assert int(a.gpudata) % 32 == 16, "the simulator placed it differently: pick another size"
    stats = _traced(mod.get_function("copy"), a, b, block=(12, 1, 1))
    assert stats.global_ld.sectors == 2 and stats.global_st.sectors == 2


def test_atomics_are_counted_as_atomics_not_stores(mod):
    n = gpuarray.zeros(1, np.int32)
    stats = _traced(mod.get_function("count"), n, block=(64, 1, 1))
    assert stats.atomics.requests == 2 and stats.atomics.lanes == 64
    assert stats.global_st.requests == 0 and n.get()[0] == 64


def test_a_float_atomic_is_one_atomic_however_busy_the_cpu():
    # float atomicAdd is a compare-and-swap loop on the CPU; when two workers hit the same float
    # at once, a retry is the simulator's work, not another atomic of the kernel's
    mod = SourceModule(r"""
__global__ void add_all(float *total) { atomicAdd(total, 1.0f); }""")
    total = gpuarray.zeros(1, np.float32)
    for _ in range(5):
        total.fill(0)
        with settings.changed(workers=4), trace() as t:
            mod.get_function("add_all")(total, block=(1024, 1, 1), grid=(64, 1))
        assert total.get()[0] == 65536
        assert (t["add_all"].atomics.requests, t["add_all"].atomics.lanes) == (2048, 65536)


def test_shared_atomics_are_counted_apart_from_global_ones():
    # a privatised count: 64 atomics on a shared counter, then one global atomic a block
    mod = SourceModule(r"""
__global__ void count_shared(int *n) {
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    atomicAdd(&c, 1);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(n, c);
}""")
    n = gpuarray.zeros(1, np.int32)
    stats = _traced(mod.get_function("count_shared"), n, block=(64, 1, 1), grid=(3, 1))
    assert (stats.shared_atomics.requests, stats.shared_atomics.lanes) == (6, 192)
    assert (stats.atomics.requests, stats.atomics.lanes) == (3, 3) and n.get()[0] == 192
    assert "shared atomics: 6 requests, 192 operations" in str(trace_report_of(stats))


def trace_report_of(stats):
    from helpers.sim.microscope.tables import kernel_table
    return kernel_table(stats)


SHARED = r"""
__global__ void column(float *out, int pad) {
    __shared__ float tile[32][33];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = x;
    __syncthreads();
    out[y * 32 + x] = pad ? tile[x][y] : tile[y][0];
}
__global__ void stride32(float *out) {
    __shared__ float t[32 * 32];
    t[threadIdx.x * 32] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = t[threadIdx.x * 32] + t[0];
}
__global__ void stride2(float *out) {
    __shared__ float t[64];
    t[2 * threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = t[2 * threadIdx.x];
}
__global__ void wide(double *out, float4 *out4) {
    __shared__ double d[32];
    __shared__ float4 f[32];
    int x = threadIdx.x;
    d[x] = x; f[x] = make_float4(x, x, x, x);
    __syncthreads();
    out[x] = d[x]; out4[x] = f[x];
}
"""


@pytest.fixture(scope="module")
def shared():
    return SourceModule(SHARED)


def test_a_column_of_a_32_wide_tile_is_a_32_way_bank_conflict(shared):
    out = gpuarray.zeros(1024, np.float32)
    stats = _traced(shared.get_function("stride32"), out, block=(32, 1, 1))
    assert stats.shared_st.requests == 1 and stats.shared_st.bank_conflicts == 31
    # t[x * 32] (32 words in bank 0: 32 wavefronts), then t[0] (one word for all: 1 wavefront)
    assert stats.shared_ld.requests == 2 and stats.shared_ld.wavefronts == 33


def test_padding_and_broadcast_have_no_conflict(shared):
    out = gpuarray.zeros(1024, np.float32)
    for pad in (1, 0):  # tile[x][y] in a 33-wide tile; tile[y][0], the same word for a warp
        stats = _traced(shared.get_function("column"), out, np.int32(pad), block=(32, 32, 1))
        assert stats.shared_ld.requests == 32 and stats.shared_ld.bank_conflicts == 0


def test_words_two_apart_are_a_2_way_conflict(shared):
    out = gpuarray.zeros(32, np.float32)
    stats = _traced(shared.get_function("stride2"), out, block=(32, 1, 1))
    assert stats.shared_ld.wavefronts == 2 and stats.shared_ld.bank_conflicts == 1


def test_8_and_16_byte_shared_accesses_go_in_phases(shared):
    d, f = gpuarray.zeros(32, np.float64), gpuarray.zeros(128, np.float32)
    stats = _traced(shared.get_function("wide"), d, f, block=(32, 1, 1))
    # 32 doubles: 2 phases of 16 lanes; 32 float4: 4 phases of 8; no conflict in any phase
    assert stats.shared_st.wavefronts == 2 + 4 and stats.shared_st.bank_conflicts == 0
    assert stats.shared_ld.wavefronts == 2 + 4 and stats.shared_ld.bank_conflicts == 0


def test_divergence_lowers_lane_efficiency(mod):
    out = gpuarray.zeros(32, np.float32)
    fn = mod.get_function("loop")
    with trace(divergence=True) as t:
        fn(out, block=(32, 1, 1))
    # lane i runs the loop body i times: the warp runs it 31 times with 496 lanes in all
    assert t["loop"].lane_efficiency < 0.6
    with trace() as t:  # without divergence=True: memory requests only (one full store)
        fn(out, block=(32, 1, 1))
    assert t["loop"].lane_efficiency == 1.0


def test_a_partial_warp_counts_only_its_lanes(mod):
    a, b = gpuarray.to_gpu(np.ones(48, np.float32)), gpuarray.zeros(48, np.float32)
    stats = _traced(mod.get_function("copy"), a, b, block=(48, 1, 1))
    assert stats.global_ld.requests == 2 and stats.global_ld.lanes == 48
    assert stats.lane_efficiency == pytest.approx(48 / 64)


@pytest.mark.parametrize("workers", [1, 3])
def test_counts_do_not_depend_on_the_worker_count(shared, workers):
    out = gpuarray.zeros(1024, np.float32)
    with settings.changed(workers=workers), trace() as t:
        shared.get_function("column")(out, np.int32(1), block=(32, 32, 1), grid=(4, 1))
    assert t["column"].metrics()["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 128


def test_per_line_figures_and_the_summary(shared):
    out = gpuarray.zeros(1024, np.float32)
    with trace() as t:
        shared.get_function("stride32")(out, block=(32, 1, 1))
    lines = t["stride32"], t.launches[0].lines()
    assert {line for _, line in lines[1]} == {11, 13}
    text = str(t.summary()) + str(t.lines())
    assert "bank conflicts" in text and "kernel.cu:11" in text and "stride32" in text


def test_a_fault_in_a_traced_launch_is_reported_and_the_next_launch_works(mod):
    from helpers.sim.errors import OutOfBoundsError

    fn = mod.get_function("wild")
    out = gpuarray.zeros(32, np.float32)
    # Thread 1 writes 256 bytes into out's 128: on the guard page after it, so it faults. (A
    # stride of megabytes would write into whatever else the process has mapped there first, and
    # corrupt it: Python's own heap, which crashed a later garbage collection now and then.)
    with trace() as t, pytest.raises(OutOfBoundsError) as err:
        fn(out, np.int32(64), block=(32, 1, 1))
    e = err.value
    assert (e.kind, e.kernel, e.thread, e.array, e.element, e.is_write) == (
        "out of bounds", "wild", (1, 0, 0), "out", 64, True)
    with trace() as t:
        fn(out, np.int32(1), block=(32, 1, 1))
    assert t["wild"].global_st.requests == 1


def test_a_launch_queued_on_a_stream_is_traced_when_it_runs(mod):
    from helpers.sim import driver as drv

    a, b = gpuarray.to_gpu(np.ones(32, np.float32)), gpuarray.zeros(32, np.float32)
    stream = drv.Stream()
    with trace() as t:
        mod.get_function("copy")(a, b, block=(32, 1, 1), stream=stream)
    stream.synchronize()  # the launch runs now, after the with block
    assert t["copy"].global_ld.requests == 1 and (b.get() == 1).all()
