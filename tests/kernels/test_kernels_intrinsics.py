"""CUDA's intrinsics of compute capability 9.0 (the H200's), the same on a GPU and on the CPU
simulator: warp match and reduce, __nanosleep, DPX, the integer intrinsics, cache-hinted loads
and stores, and the scoped atomics. Each result is checked against a reference written here in
Python from the CUDA documentation.

This file runs on whichever backend helpers.backend chose, as tests/kernels/test_kernels.py does.
"""

import numpy as np

from helpers.backend import SourceModule, gpuarray

M32 = 0xFFFFFFFF


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def s16(x):
    x &= 0xFFFF
    return x - (1 << 16) if x >> 15 else x


# ---- warp match and reduce -------------------------------------------------------------------------
WARP = r"""
__global__ void match_and_reduce(const int *in, unsigned *out) {
    int t = threadIdx.x, lane = t % 32;
    int v = in[t];
    unsigned odd = 0xAAAAAAAAu;                          // the odd lanes only
    int pred = -1;
    unsigned *o = out + 8 * t;
    o[0] = __match_any_sync(0xffffffff, v);
    o[1] = __match_all_sync(0xffffffff, (float)v, &pred);
    o[2] = pred;
    o[3] = __match_any_sync(0xffffffff, (unsigned long long)v << 40);
    o[4] = __reduce_add_sync(0xffffffff, v);
    o[5] = __reduce_min_sync(0xffffffff, v) + 1000 * __reduce_max_sync(0xffffffff, v);
    o[6] = __reduce_min_sync(0xffffffff, (unsigned)v) ^ __reduce_max_sync(0xffffffff, (unsigned)v);
    o[7] = (lane & 1) ? __reduce_and_sync(odd, (unsigned)v) ^ (__reduce_or_sync(odd, (unsigned)v) << 8)
                            ^ (__reduce_xor_sync(odd, (unsigned)v) << 16)
                      : 0u;
}
"""

NAP = r"""
__global__ void wait_for_a_later_thread(int *out) {
    __shared__ volatile int flag;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    if (threadIdx.x == 0) {                // waits, napping, for the block's last thread
        int k = 0;
        while (flag == 0 && k < 1000000) { __nanosleep(100); k++; }
        out[0] = flag;
    } else if (threadIdx.x == blockDim.x - 1) {
        flag = 42;
        __threadfence_block();
    }
}
"""


def _warp_reference(v):
    out = np.zeros((len(v), 8), np.uint64)
    for w in range(0, len(v), 32):
        vals = [int(x) for x in v[w:w + 32]]
        odd = [vals[k] for k in range(1, 32, 2)]
        same_all = len(set(vals)) == 1
        for lane, x in enumerate(vals):
            out[w + lane, 0] = sum(1 << k for k, y in enumerate(vals) if y == x)
            out[w + lane, 1], out[w + lane, 2] = (M32, 1) if same_all else (0, 0)
            out[w + lane, 3] = out[w + lane, 0]
            out[w + lane, 4] = sum(vals) & M32
            out[w + lane, 5] = (min(vals) + 1000 * max(vals)) & M32
            out[w + lane, 6] = min(y & M32 for y in vals) ^ max(y & M32 for y in vals)
            if lane & 1:
                a, o, x_ = M32, 0, 0
                for y in odd:
                    a, o, x_ = a & y & M32, o | (y & M32), x_ ^ (y & M32)
                out[w + lane, 7] = (a ^ (o << 8) ^ (x_ << 16)) & M32
    return out.astype(np.uint32)


def test_warp_match_and_reduce():
    t = np.arange(64)
    v = np.where(t < 32, t % 4 - 2, 7).astype(np.int32)   # warp 0: four groups; warp 1: one
    out = gpuarray.zeros(8 * 64, np.uint32)
    SourceModule(WARP).get_function("match_and_reduce")(gpuarray.to_gpu(v), out, block=(64, 1, 1))
    got, want = out.get().reshape(64, 8), _warp_reference(v)
    for col in range(8):
        assert np.array_equal(got[:, col], want[:, col]), col


def test_a_thread_napping_in_a_loop_lets_the_others_run():
    out = gpuarray.zeros(1, np.int32)
    SourceModule(NAP).get_function("wait_for_a_later_thread")(out, block=(64, 1, 1))
    assert out.get()[0] == 42


# ---- DPX (compute capability 9.0) ----------------------------------------------------------------
DPX_32 = ["__vimax3_s32", "__vimax3_u32", "__vimin3_s32", "__vimin3_u32", "__vimax3_s32_relu",
          "__vimin3_s32_relu", "__viaddmax_s32", "__viaddmax_u32", "__viaddmin_s32",
          "__viaddmin_u32", "__viaddmax_s32_relu", "__viaddmin_s32_relu"]
DPX_16 = [name.replace("32", "16x2") for name in DPX_32]


def _dpx_call(name):
    signed = "_s" in name and "x2" not in name
    args = "(int)x, (int)y, (int)z" if signed else "x, y, z"
    return f"(unsigned){name}({args})"


DPX = r"""
__global__ void dpx(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i], *o = out + %(width)d * i;
    bool p = false, q = false;
    %(calls)s
    o[%(k)d] = (unsigned)__vimax_s32_relu((int)x, (int)y);
    o[%(k)d + 1] = (unsigned)__vimin_s32_relu((int)x, (int)y);
    o[%(k)d + 2] = __vimax_s16x2_relu(x, y);
    o[%(k)d + 3] = __vimin_s16x2_relu(x, y);
    o[%(k)d + 4] = (unsigned)__vibmax_s32((int)x, (int)y, &p) + 2u * p;
    o[%(k)d + 5] = __vibmax_u32(x, y, &p) + 2u * p;
    o[%(k)d + 6] = (unsigned)__vibmin_s32((int)x, (int)y, &p) + 2u * p;
    o[%(k)d + 7] = __vibmin_u32(x, y, &p) + 2u * p;
    o[%(k)d + 8] = __vibmax_s16x2(x, y, &p, &q) ^ (p << 31) ^ (q << 30);
    o[%(k)d + 9] = __vibmax_u16x2(x, y, &p, &q) ^ (p << 31) ^ (q << 30);
    o[%(k)d + 10] = __vibmin_s16x2(x, y, &p, &q) ^ (p << 31) ^ (q << 30);
    o[%(k)d + 11] = __vibmin_u16x2(x, y, &p, &q) ^ (p << 31) ^ (q << 30);
}
"""


def _lanes(x, y, z, name):
    """One DPX function on Python ints, for a 32-bit value or a 16-bit half."""
    signed = "_s" in name
    bits = 16 if "x2" in name else 32
    conv = (s16 if bits == 16 else s32) if signed else (lambda v: v & ((1 << bits) - 1))
    x, y, z = conv(x), conv(y), conv(z)
    if "add" in name:
        x, y = conv(x + y), z
        r = max(x, y) if "max" in name else min(x, y)
    else:
        r = (max if "max" in name else min)(x, y, z)
    return max(r, 0) if "relu" in name else r


def _dpx_reference(x, y, z, name):
    if "x2" not in name:
        return _lanes(x, y, z, name) & M32
    lo = _lanes(x & 0xFFFF, y & 0xFFFF, z & 0xFFFF, name) & 0xFFFF
    hi = _lanes(x >> 16, y >> 16, z >> 16, name) & 0xFFFF
    return lo | hi << 16


def _pick_reference(x, y, name):
    """__vibmax/__vibmin: the chosen value and the predicates (a chosen), as the kernel packs them."""
    is_max, signed = "max" in name, "_s" in name
    if "x2" not in name:
        cx, cy = (s32(x), s32(y)) if signed else (x, y)
        p = cx >= cy if is_max else cx <= cy
        return ((x if p else y) + 2 * p) & M32
    out, preds = 0, []
    for shift in (0, 16):
        hx, hy = (x >> shift) & 0xFFFF, (y >> shift) & 0xFFFF
        cx, cy = (s16(hx), s16(hy)) if signed else (hx, hy)
        p = cx >= cy if is_max else cx <= cy
        out |= (hx if p else hy) << shift
        preds.append(p)
    return out ^ (preds[1] << 31) ^ (preds[0] << 30)


def test_dpx_functions_of_compute_capability_9():
    names = DPX_32 + DPX_16
    calls = "\n    ".join(f"o[{k}] = {_dpx_call(n)};" for k, n in enumerate(names))
    src = DPX % {"calls": calls, "k": len(names), "width": len(names) + 12}
    rng = np.random.default_rng(9)
    n = 256
    a, b, c = (rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    a[:8] = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x7FFF7FFF, 0x80008000, 0x00017FFF]
    out = gpuarray.zeros((n, len(names) + 12), np.uint32)
    SourceModule(src).get_function("dpx")(gpuarray.to_gpu(a), gpuarray.to_gpu(b),
                                          gpuarray.to_gpu(c), out, np.int32(n), block=(128, 1, 1),
                                          grid=(2, 1))
    got = out.get()
    for i in range(n):
        x, y, z = int(a[i]), int(b[i]), int(c[i])
        want = [_dpx_reference(x, y, z, name) for name in names]
        want += [max(s32(x), s32(y), 0), max(min(s32(x), s32(y)), 0),
                 _dpx_reference(x, y, y, "__vimax3_s16x2_relu"),
                 _dpx_reference(x, y, y, "__vimin3_s16x2_relu")]
        want += [_pick_reference(x, y, name) for name in
                 ("max_s32", "max_u32", "min_s32", "min_u32",
                  "max_s16x2", "max_u16x2", "min_s16x2", "min_u16x2")]
        assert got[i].tolist() == want, (i, x, y, z)


# ---- integer intrinsics, cache hints, scoped atomics ---------------------------------------------
INTEGER = r"""
__global__ void integer(const unsigned *a, const unsigned *b, unsigned *out, unsigned *counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = __ldcg(a + i), y = __ldca(b + i), s = y % 40;
    unsigned *o = out + 16 * i;
    o[0] = __funnelshift_l(x, y, s);
    o[1] = __funnelshift_lc(x, y, s);
    o[2] = __funnelshift_r(x, y, s);
    o[3] = __funnelshift_rc(x, y, s);
    unsigned long long r = __brevll(((unsigned long long)x << 32) | y);
    o[4] = (unsigned)r;
    o[5] = (unsigned)(r >> 32);
    o[6] = (unsigned)__hadd((int)x, (int)y);
    o[7] = (unsigned)__rhadd((int)x, (int)y);
    o[8] = __uhadd(x, y);
    o[9] = __urhadd(x, y);
    o[10] = (unsigned)__dp4a((int)x, (int)y, 7);
    o[11] = __dp4a(x, y, 7u);
    o[12] = (unsigned)__dp2a_lo((int)x, (int)y, -3);
    o[13] = __dp2a_hi(x, y, 3u);
    __stcs(o + 14, __ldcs(a + i) ^ __ldlu(b + i));
    __stwt(o + 15, __ldcv(a + i) + 1);
    atomicAdd_block(counts, 1);
    atomicAdd_system(counts + 1, 2);
    atomicMax_block(counts + 2, x);
    atomicOr_system(counts + 3, 1u << (i % 32));
}
"""


def _dot(x, y, n, from_byte, signed):
    s = 0
    for k in range(n):
        part = (x >> (32 // n * k)) & ((1 << (32 // n)) - 1)
        if signed:
            part = part - (1 << (32 // n)) if part >> (32 // n - 1) else part
        byte = (y >> (8 * (from_byte + k))) & 0xFF
        if signed:
            byte = byte - 256 if byte >> 7 else byte
        s += part * byte
    return s


def _integer_reference(x, y):
    s = y % 40
    wide = y << 32 | x
    return [(wide << (s & 31)) >> 32 & M32, x if s >= 32 else (wide << s) >> 32 & M32,
            (wide >> (s & 31)) & M32, y if s >= 32 else (wide >> s) & M32,
            int(f"{x:032b}"[::-1], 2), int(f"{y:032b}"[::-1], 2),
            ((s32(x) + s32(y)) >> 1) & M32, ((s32(x) + s32(y) + 1) >> 1) & M32,
            (x + y) >> 1, (x + y + 1) >> 1,
            (_dot(x, y, 4, 0, True) + 7) & M32, (_dot(x, y, 4, 0, False) + 7) & M32,
            (_dot(x, y, 2, 0, True) - 3) & M32, (_dot(x, y, 2, 2, False) + 3) & M32,
            x ^ y, (x + 1) & M32]


def test_integer_intrinsics_cache_hints_and_scoped_atomics():
    rng = np.random.default_rng(5)
    n = 200
    a, b = (rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    out, counts = gpuarray.zeros((n, 16), np.uint32), gpuarray.zeros(4, np.uint32)
    SourceModule(INTEGER).get_function("integer")(gpuarray.to_gpu(a), gpuarray.to_gpu(b), out,
                                                  counts, np.int32(n), block=(64, 1, 1), grid=(4, 1))
    got = out.get()
    for i in range(n):
        assert got[i].tolist() == _integer_reference(int(a[i]), int(b[i])), i
    assert counts.get().tolist() == [n, 2 * n, int(a.max()), M32]


PROMOTED = r"""
__global__ void count_and_extremes(const int *in, int *out) {
    int v = in[threadIdx.x];
    bool above = v > 3;
    out[0] = __reduce_add_sync(0xffffffff, above);             // a bool counts, as CUDA's int
    out[1] = __reduce_min_sync(0xffffffff, (short)(v - 20));   // a short compares as an int
    out[2] = __reduce_max_sync(0xffffffff, (unsigned char)v);  // so does an unsigned char
}
"""


def test_a_bool_short_or_char_is_reduced_as_the_int_it_promotes_to():
    # nvcc picks the int overload of __reduce_*_sync for them; the simulator once refused a bool
    values = np.arange(32, dtype=np.int32) % 7
    out = gpuarray.zeros(3, np.int32)
    SourceModule(PROMOTED).get_function("count_and_extremes")(gpuarray.to_gpu(values), out,
                                                              block=(32, 1, 1))
    assert out.get().tolist() == [int((values > 3).sum()), int(values.min()) - 20,
                                  int(values.max())]
