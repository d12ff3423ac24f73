"""Kernels whose results must be the same on a GPU (PyCUDA) and on the CPU simulator.

This file runs on whichever backend helpers.backend chose: in CI the simulator, on a GPU machine
PyCUDA. Each test has a kernel that a careless emulator would get wrong.
"""

import numpy as np
import pytest

from helpers.backend import SourceModule, drv, gpuarray


def module(source):
    return SourceModule(source)


# ---- indexing ----------------------------------------------------------------------------------
INDEXING = r"""
__global__ void index_1d(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * 10 + threadIdx.x % 7;
}
__global__ void index_2d(int *out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = (blockIdx.y * gridDim.x + blockIdx.x) * 10000 + threadIdx.y * 100 + threadIdx.x;
}
__global__ void index_3d(int *out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 1000 * y + 1000000 * z;
}
__global__ void grid_stride(float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] += 1.0f;
}
"""


def test_index_1d_with_a_size_that_is_not_a_multiple_of_the_block():
    n, block = 1000, 128
    out = gpuarray.to_gpu(np.full(n + 24, -1, np.int32))
    module(INDEXING).get_function("index_1d")(out, np.int32(n), block=(block, 1, 1),
                                              grid=((n + block - 1) // block, 1))
    got = out.get()
    i = np.arange(n)
    assert np.array_equal(got[:n], i * 10 + (i % block) % 7)
    assert (got[n:] == -1).all(), "threads past n must not write"


def test_index_2d_blocks_and_threads():
    width, height, bx, by = 37, 23, 8, 4
    out = gpuarray.to_gpu(np.full((height, width), -1, np.int32))
    grid = ((width + bx - 1) // bx, (height + by - 1) // by)
    module(INDEXING).get_function("index_2d")(out, np.int32(width), np.int32(height),
                                              block=(bx, by, 1), grid=grid)
    y, x = np.mgrid[:height, :width]
    want = ((y // by) * grid[0] + x // bx) * 10000 + (y % by) * 100 + x % bx
    assert np.array_equal(out.get(), want)


def test_index_3d():
    nx, ny, nz = 9, 5, 3
    out = gpuarray.to_gpu(np.full((nz, ny, nx), -1, np.int32))
    module(INDEXING).get_function("index_3d")(out, np.int32(nx), np.int32(ny), np.int32(nz),
                                              block=(4, 2, 2), grid=(3, 3, 2))
    z, y, x = np.mgrid[:nz, :ny, :nx]
    assert np.array_equal(out.get(), x + 1000 * y + 1000000 * z)


def test_a_thread_index_past_int_max_wraps_as_on_a_gpu():
    # 2,147,484 blocks of 1000 threads: the last holds threads 2^31 - 648 to 2^31 + 351, whose int
    # index wraps to a negative number from its thread 648 on
    src = r"""
    __global__ void far_threads(int *out, int from) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= from) out[i - from] = threadIdx.x;
    }"""
    out = gpuarray.to_gpu(np.full(1000, -1, np.int32))
    module(src).get_function("far_threads")(out, np.int32(2**31 - 648), block=(1000, 1, 1),
                                            grid=(2_147_484, 1))
    assert np.array_equal(out.get(), np.where(np.arange(1000) < 648, np.arange(1000), -1))


def test_every_block_of_a_large_3d_grid_knows_its_index():
    # a worker of the simulator claims many consecutive blocks at once and counts their indices on
    src = r"""
    __global__ void block_index(int *out) {
        int b = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
        out[b] = blockIdx.x + 1000 * blockIdx.y + 1000000 * blockIdx.z;
    }"""
    gx, gy, gz = 5, 7, 40
    out = gpuarray.to_gpu(np.full((gz, gy, gx), -1, np.int32))
    module(src).get_function("block_index")(out, block=(1, 1, 1), grid=(gx, gy, gz))
    z, y, x = np.mgrid[:gz, :gy, :gx]
    assert np.array_equal(out.get(), x + 1000 * y + 1000000 * z)


def test_grid_stride_loop_touches_every_element_once():
    n = 10_000
    out = gpuarray.zeros(n, np.float32)
    module(INDEXING).get_function("grid_stride")(out, np.int32(n), block=(64, 1, 1), grid=(7, 1))
    assert (out.get() == 1.0).all()


# ---- vector types, as laid out by CUDA ------------------------------------------------------------
VECTOR_TYPES = ["char2", "uchar3", "uchar4", "short2", "short3", "int2", "int3", "int4", "uint4",
                "float2", "float3", "float4", "double2", "longlong2", "ulonglong2"]


def test_vector_types_have_cudas_sizes_and_alignment():
    body = "\n".join(f"    out[{2 * i}] = sizeof({t}); out[{2 * i + 1}] = alignof({t});"
                     for i, t in enumerate(VECTOR_TYPES))
    src = f"__global__ void layout(int *out) {{\n{body}\n}}\n"
    out = gpuarray.zeros(2 * len(VECTOR_TYPES), np.int32)
    module(src).get_function("layout")(out, block=(1, 1, 1))
    expected = {"char2": (2, 2), "uchar3": (3, 1), "uchar4": (4, 4), "short2": (4, 4),
                "short3": (6, 2), "int2": (8, 8), "int3": (12, 4), "int4": (16, 16),
                "uint4": (16, 16), "float2": (8, 8), "float3": (12, 4), "float4": (16, 16),
                "double2": (16, 16), "longlong2": (16, 16), "ulonglong2": (16, 16)}
    got = out.get().reshape(-1, 2)
    assert {t: tuple(got[i]) for i, t in enumerate(VECTOR_TYPES)} == expected


def test_vector_loads_and_make_functions():
    src = r"""
    __global__ void swizzle(const float4 *in, float4 *out, uchar4 *bytes, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n) return;
        float4 v = in[i];
        out[i] = make_float4(v.w, v.z, v.y, v.x);
        bytes[i] = make_uchar4(i, i + 1, i + 2, 255);
    }
    """
    n = 50
    a = np.arange(4 * n, dtype=np.float32).reshape(n, 4)
    out, by = gpuarray.empty((n, 4), np.float32), gpuarray.empty((n, 4), np.uint8)
    module(src).get_function("swizzle")(gpuarray.to_gpu(a), out, by, np.int32(n),
                                        block=(32, 1, 1), grid=(2, 1))
    assert np.array_equal(out.get(), a[:, ::-1])
    i = np.arange(n)
    assert np.array_equal(by.get(), np.stack([i, i + 1, i + 2, np.full(n, 255)], 1).astype(np.uint8))


# ---- printf ------------------------------------------------------------------------------------
def test_printf_from_every_block_and_thread(capfd):
    src = r'__global__ void hello() { printf("block %d thread %d\n", blockIdx.x, threadIdx.x); }'
    capfd.readouterr()
    module(src).get_function("hello")(block=(3, 1, 1), grid=(2, 1))
    drv.Context.synchronize()
    lines = sorted(capfd.readouterr().out.splitlines())
    assert lines == sorted(f"block {b} thread {t}" for b in range(2) for t in range(3))


# ---- barriers and shared memory -------------------------------------------------------------------
REDUCE = r"""
__global__ void block_sum(const float *in, float *out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
__global__ void reverse_dynamic(const int *in, int *out) {
    extern __shared__ int buf[];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t];
}
__global__ void after_early_return(int *out, int active) {
    if (threadIdx.x >= active) return;       // these threads leave before the barrier
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x + 1;
    __syncthreads();                          // must wait only for the threads still running
    out[threadIdx.x] = s[(threadIdx.x + 1) % active] + 100 * __syncthreads_count(threadIdx.x % 2);
}
"""


def test_shared_memory_tree_reduction_needs_every_barrier():
    n = 100_000
    x = np.random.default_rng(1).random(n).astype(np.float32)
    blocks = (n + 255) // 256
    out = gpuarray.empty(blocks, np.float32)
    module(REDUCE).get_function("block_sum")(gpuarray.to_gpu(x), out, np.int32(n),
                                             block=(256, 1, 1), grid=(blocks, 1))
    want = np.pad(x, (0, blocks * 256 - n)).reshape(blocks, 256).sum(1)
    assert np.allclose(out.get(), want, rtol=1e-5)


def test_dynamic_shared_memory_sized_by_the_launch():
    a = np.arange(4 * 64, dtype=np.int32)
    out = gpuarray.empty_like(gpuarray.to_gpu(a))
    module(REDUCE).get_function("reverse_dynamic")(gpuarray.to_gpu(a), out, block=(64, 1, 1),
                                                   grid=(4, 1), shared=64 * 4)
    assert np.array_equal(out.get(), a.reshape(4, 64)[:, ::-1].ravel())


def test_barrier_after_an_early_return_waits_only_for_live_threads():
    active = 10
    out = gpuarray.to_gpu(np.full(64, -1, np.int32))
    module(REDUCE).get_function("after_early_return")(out, np.int32(active), block=(64, 1, 1))
    t = np.arange(active)
    assert np.array_equal(out.get()[:active], (t + 1) % active + 1 + 100 * 5)
    assert (out.get()[active:] == -1).all()


# ---- warps --------------------------------------------------------------------------------------
WARPS = r"""
__global__ void warp_sum(const int *in, int *out) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = v;
}
__global__ void warp_ops(int *out) {
    int lane = threadIdx.x % 32, t = threadIdx.x;
    out[4 * t + 0] = __shfl_sync(0xffffffff, t, 3);          // broadcast lane 3 of this warp
    out[4 * t + 1] = __shfl_xor_sync(0xffffffff, t, 1);      // swap neighbours
    out[4 * t + 2] = __ballot_sync(0xffffffff, lane < 5 || t >= 40);
    out[4 * t + 3] = __any_sync(0xffffffff, t == 50) + 2 * __all_sync(0xffffffff, t < 32);
}
"""


def test_warp_shuffle_reduction_in_every_warp_of_the_block():
    x = np.arange(2 * 128, dtype=np.int32)
    out = gpuarray.empty(8, np.int32)
    module(WARPS).get_function("warp_sum")(gpuarray.to_gpu(x), out, block=(128, 1, 1), grid=(2, 1))
    assert np.array_equal(out.get(), x.reshape(8, 32).sum(1))


def test_shuffles_and_votes_in_the_second_warp():
    out = gpuarray.zeros(4 * 64, np.int32)
    module(WARPS).get_function("warp_ops")(out, block=(64, 1, 1))
    got = out.get().reshape(64, 4)
    t = np.arange(64)
    assert np.array_equal(got[:, 0], (t // 32) * 32 + 3)
    assert np.array_equal(got[:, 1], t ^ 1)
    ballot_warp1 = np.uint32(0b11111) | np.uint32(0xFFFFFFFF & ~((1 << 8) - 1))  # lanes 0-4, 8-31
    want = np.where(t < 32, 0b11111, ballot_warp1.astype(np.int64)).astype(np.uint32).view(np.int32)
    assert np.array_equal(got[:, 2], want)
    assert np.array_equal(got[:, 3], np.where(t < 32, 2, 1))


def test_syncwarp_with_and_without_a_mask():
    src = r"""
    __global__ void pass_left(int *out) {
        __shared__ int s[32];
        int lane = threadIdx.x, mask = -1;   // an int mask, as CUDA code often has
        s[lane] = lane * 10;
        __syncwarp();
        int left = s[(lane + 1) % 32];
        __syncwarp(mask);
        out[lane] = left;
    }
    """
    out = gpuarray.zeros(32, np.int32)
    module(src).get_function("pass_left")(out, block=(32, 1, 1))
    assert np.array_equal(out.get(), (np.arange(32) + 1) % 32 * 10)


# ---- atomics --------------------------------------------------------------------------------------
ATOMICS = r"""
__global__ void contend(int *counter, unsigned long long *big, float *fsum, int *mx, int *mn,
                        unsigned *wrap, int *cas_winner, int *bits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(counter, 1);
    atomicSub(counter + 1, 2);
    atomicAdd(big, 1ULL << 33);
    atomicAdd(fsum, 0.5f);
    atomicMax(mx, (i * 7919) % 10007);
    atomicMin(mn, (i * 7919) % 10007);
    atomicInc(wrap, 9);
    atomicCAS(cas_winner, -1, i);
    atomicOr(bits, 1 << (i % 31));
    atomicXor(bits + 1, 1);
    atomicAnd(bits + 2, ~(1 << (i % 8)));
    atomicExch(bits + 3, 42);
}
"""


def test_atomics_under_contention():
    blocks, threads = 64, 256
    n = blocks * threads
    counter = gpuarray.zeros(2, np.int32)
    big = gpuarray.zeros(1, np.uint64)
    fsum = gpuarray.zeros(1, np.float32)
    mx, mn = gpuarray.to_gpu(np.array([-1], np.int32)), gpuarray.to_gpu(np.array([1 << 30], np.int32))
    wrap = gpuarray.zeros(1, np.uint32)
    cas = gpuarray.to_gpu(np.array([-1], np.int32))
    bits = gpuarray.to_gpu(np.array([0, 0, 0xFF, 0], np.int32))
    module(ATOMICS).get_function("contend")(counter, big, fsum, mx, mn, wrap, cas, bits,
                                            block=(threads, 1, 1), grid=(blocks, 1))
    i = np.arange(n)
    assert counter.get().tolist() == [n, -2 * n]
    assert big.get()[0] == n << 33
    assert fsum.get()[0] == n * 0.5
    assert mx.get()[0] == ((i * 7919) % 10007).max() and mn.get()[0] == ((i * 7919) % 10007).min()
    assert wrap.get()[0] == n % 10
    assert 0 <= cas.get()[0] < n
    assert bits.get().tolist() == [(1 << 31) - 1, n % 2, 0, 42]


# ---- integer division and local memory, as a GPU has them ----------------------------------------
DIVISION = r"""
__global__ void divide(const int *a, const int *b, int d, int *out, const long long *a64,
                       const long long *b64, long long *out64) {
    int i = threadIdx.x;
    out[4 * i] = a[i] / b[i];        // divisors read from memory
    out[4 * i + 1] = a[i] % b[i];
    out[4 * i + 2] = a[i] / d;       // a divisor in a register
    out[4 * i + 3] = a[i] % d;
    out64[2 * i] = a64[i] / b64[i];
    out64[2 * i + 1] = a64[i] % b64[i];
}
"""


def test_the_most_negative_integer_divided_by_minus_one_is_itself():
    """INT_MIN / -1 overflows: a GPU gives INT_MIN (remainder 0); x86 would trap."""
    int_min, ll_min = np.iinfo(np.int32).min, np.iinfo(np.int64).min
    a = np.array([int_min, int_min, 7, -7], np.int32)
    b = np.array([-1, 1, -1, 2], np.int32)
    a64 = np.array([ll_min, ll_min, 7, -7], np.int64)
    b64 = np.array([-1, 1, -1, 2], np.int64)
    out, out64 = gpuarray.zeros(16, np.int32), gpuarray.zeros(8, np.int64)
    module(DIVISION).get_function("divide")(
        gpuarray.to_gpu(a), gpuarray.to_gpu(b), np.int32(-1), out, gpuarray.to_gpu(a64),
        gpuarray.to_gpu(b64), out64, block=(4, 1, 1))
    got = out.get().reshape(4, 4)
    assert got[:, 0].tolist() == [int_min, int_min, -7, -3]
    assert got[:, 1].tolist() == [0, 0, 0, -1]
    assert got[:, 2].tolist() == [int_min, int_min, -7, 7]
    assert got[:, 3].tolist() == [0, 0, 0, 0]
    assert out64.get().reshape(4, 2).tolist() == [[ll_min, 0], [ll_min, 0], [-7, 0], [-3, -1]]


LOCAL = r"""
__global__ void big_local(const int *idx, int *out) {
    int local[300 * 1024 / 4];       // 300 KiB: a GPU allows a thread 512 KiB of local memory
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < 300 * 1024 / 4; i++) local[i] = 3 * i + t;
    __syncthreads();                 // every thread on a stack of its own
    out[t] = local[idx[t]];
}
"""


def test_a_thread_may_have_300_kib_of_local_arrays():
    # a launch reserves the local memory of every thread the card can hold at once (77 GiB here
    # on a GPU of 132 SMs): an H100 under a test run's load has less free, and refuses it
    device = drv.Context.get_device()
    reserved = 300 * 1024 * device.get_attribute(
        drv.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR) * device.get_attribute(
        drv.device_attribute.MULTIPROCESSOR_COUNT)
    if reserved > drv.mem_get_info()[0]:
        pytest.skip(f"the card has less than the {reserved / 2**30:.0f} GiB free that 300 KiB a "
                    "thread reserves")
    n = 2 * 32
    idx = np.random.default_rng(3).integers(0, 300 * 1024 // 4, n).astype(np.int32)
    out = gpuarray.zeros(n, np.int32)
    module(LOCAL).get_function("big_local")(gpuarray.to_gpu(idx), out, block=(32, 1, 1),
                                            grid=(2, 1))
    assert np.array_equal(out.get(), 3 * idx + np.arange(n))


# ---- constant and global variables ---------------------------------------------------------------
def test_constant_memory_and_device_globals():
    src = r"""
    __constant__ float coeffs[4];
    __device__ int calls;
    __global__ void poly(const float *x, float *y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n) return;
        y[i] = coeffs[0] + x[i] * (coeffs[1] + x[i] * (coeffs[2] + x[i] * coeffs[3]));
        atomicAdd(&calls, 1);
    }
    """
    mod = module(src)
    ptr, size = mod.get_global("coeffs")
    assert size == 16
    c = np.array([1, -2, 0.5, 0.25], np.float32)
    drv.memcpy_htod(ptr, c)
    x = np.linspace(-2, 2, 300).astype(np.float32)
    y = gpuarray.empty_like(gpuarray.to_gpu(x))
    mod.get_function("poly")(gpuarray.to_gpu(x), y, np.int32(300), block=(128, 1, 1), grid=(3, 1))
    assert np.allclose(y.get(), c[0] + x * (c[1] + x * (c[2] + x * c[3])), rtol=1e-5, atol=1e-5)
    calls = np.zeros(1, np.int32)
    drv.memcpy_dtoh(calls, mod.get_global("calls")[0])
    assert calls[0] == 300
