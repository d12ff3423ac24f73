"""What the compiler does with a kernel, the same on a GPU (nvcc, through PyCUDA) and on the CPU
simulator: floats fused as nvcc fuses them, a learner's macros left alone, a learner's global
names its own. (Host calls refused: tests/sim/compile/test_device_calls.py; the compiler's
errors and warnings: test_messages.py.)

This file runs on whichever backend helpers.backend chose, as tests/kernels/test_kernels.py does.
"""

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray
from kernel_sources import accumulated


# ---- floats as the GPU computes them -----------------------------------------------------------
MUL_ADD = r"""
__global__ void mul_add(const float *a, const float *b, const float *c, float *fused,
                        float *separate, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fused[i] = a[i] * b[i] + c[i];                   // nvcc makes this one fused multiply-add
    separate[i] = __fadd_rn(__fmul_rn(a[i], b[i]), c[i]);  // never fused
}
"""


def _mul_add_inputs():
    """a*b + c where a*b needs more than a float's 24 bits: rounded once (fused) or twice."""
    i, j = np.divmod(np.arange(256), 16)
    a = (1 + (i + 1) * 2.0**-12).astype(np.float32)
    b = (1 + (j + 1) * 2.0**-12).astype(np.float32)
    c = np.full(256, -1, np.float32)
    fused = (a.astype(np.float64) * b + c).astype(np.float32)     # exact in float64
    separate = (a * b) + c                                         # float32: rounded twice
    assert (fused != separate).sum() > 50, "the inputs must tell the two apart"
    return a, b, c, fused, separate


def _needs_fma():
    if BACKEND == "simulator":
        from helpers.sim.compile import toolchain

        if not toolchain.cpu_has_fma():
            pytest.skip("this CPU has no fused multiply-add instruction")


@pytest.mark.parametrize("options, want", [([], "fused"), (["--fmad=false"], "separate")])
def test_multiply_add_is_fused_as_nvcc_fuses_it(options, want):
    _needs_fma()
    a, b, c, fused, separate = _mul_add_inputs()
    out_fused, out_separate = gpuarray.empty(256, np.float32), gpuarray.empty(256, np.float32)
    SourceModule(MUL_ADD, options=options).get_function("mul_add")(
        gpuarray.to_gpu(a), gpuarray.to_gpu(b), gpuarray.to_gpu(c), out_fused, out_separate,
        np.int32(256), block=(128, 1, 1), grid=(2, 1))
    expected = {"fused": fused, "separate": separate}[want]
    assert np.array_equal(out_fused.get(), expected)
    assert np.array_equal(out_separate.get(), separate)



def test_an_accumulation_in_a_loop_is_a_chain_of_fused_multiply_adds():
    """nvcc fuses sum += a[k] * b[k] in a loop (bench/float_kernels.cu's tiled matmul): so must
    the simulator, whatever the host compiler's tuning thinks of FMA chains (toolchain.py)."""
    _needs_fma()
    loop, chain = accumulated(SourceModule, gpuarray)
    assert np.array_equal(loop, chain), f"{(loop != chain).sum()} of {loop.size} sums differ"
    unfused, _ = accumulated(SourceModule, gpuarray, ["--fmad=false"])
    assert (unfused != chain).sum() > 50, "the inputs must tell fused from unfused"

ACROSS_A_CALL = r"""
__device__ float product(float a, float b) { return a * b; }
__global__ void across_a_call(const float *a, const float *b, const float *c, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = product(a[i], b[i]) + c[i];   // nvcc inlines the call, then fuses
}
"""


@pytest.mark.parametrize("options, want", [([], "fused"), (["--fmad=false"], "separate")])
def test_a_product_returned_by_a_device_function_fuses_with_its_callers_add(options, want):
    """nvcc inlines a small __device__ function and fuses its multiply with the caller's add
    (PTX fma.rn.f32). The simulator did not: a function of the learner's, visible to other
    libraries under -fPIC, stayed a call, and 64 of these 256 sums differed from a GPU's."""
    _needs_fma()
    a, b, c, fused, separate = _mul_add_inputs()
    out = gpuarray.empty(256, np.float32)
    SourceModule(ACROSS_A_CALL, options=options).get_function("across_a_call")(
        gpuarray.to_gpu(a), gpuarray.to_gpu(b), gpuarray.to_gpu(c), out, np.int32(256),
        block=(128, 1, 1), grid=(2, 1))
    expected = {"fused": fused, "separate": separate}[want]
    assert np.array_equal(out.get(), expected), f"{(out.get() != expected).sum()} of 256 differ"

# ---- a learner's macros --------------------------------------------------------------------------
MACROS = ["T", "N", "K", "A", "B", "C", "M", "P", "S", "W", "TILE", "TILE_WIDTH", "BLOCK",
          "BLOCK_SIZE", "WIDTH", "SIZE", "block", "thread", "frame", "worker", "sim", "site",
          "Site", "value", "mask", "lane", "width", "src", "op", "kind", "args", "name", "entry",
          "Kernel", "count", "result", "status", "fill", "std", "SIM_SITE", "SIM_KERNEL",
          "SIM_EXPORT", "always_inline", "noinline", "aligned", "format"]

USES_EVERYTHING = r"""
__global__ void everything(const float *in, float *out, unsigned *bins, int n) {
    extern __shared__ float dyn[];
    __shared__ float tile_[32];
    int t_ = threadIdx.x, i_ = blockIdx.x * blockDim.x + t_;
    float v_ = i_ < n ? in[i_] : 0.0f;
    tile_[t_] = v_;
    dyn[t_] = 2.0f * v_;
    __syncthreads();
    float s_ = tile_[(t_ + 1) % 32] + dyn[t_];
    s_ += __shfl_down_sync(0xffffffff, s_, 1);
    unsigned b_ = __ballot_sync(0xffffffff, v_ > 0.5f);
    assert(t_ < 32);
    atomicAdd(&bins[t_ % 4], 1u);
    if (i_ < n) out[i_] = s_ + (float)__popc(b_) + max(gridDim.x, blockDim.y) + __sinf(0.0f);
}
"""


def test_a_learners_macros_do_not_change_the_cuda_it_uses():
    defines = "".join(f"#define {m} 7\n" for m in MACROS)
    mod = SourceModule(defines + USES_EVERYTHING)
    n = 64
    x = np.random.default_rng(2).random(n).astype(np.float32)
    out, bins = gpuarray.empty(n, np.float32), gpuarray.zeros(4, np.uint32)
    mod.get_function("everything")(gpuarray.to_gpu(x), out, bins, np.int32(n),
                                   block=(32, 1, 1), grid=(2, 1), shared=32 * 4)
    tiles = x.reshape(2, 32)
    s = np.roll(tiles, -1, axis=1) + 2 * tiles
    s[:, :31] += s[:, 1:]
    s[:, 31] *= 2
    popc = (tiles > 0.5).sum(1, keepdims=True)
    assert np.allclose(out.get(), (s + popc + 2).ravel(), rtol=1e-6)
    assert bins.get().tolist() == [16, 16, 16, 16]


# ---- a learner's global names are the module's own ----------------------------------------------
GLOBAL_NAMES = r"""
__constant__ int step;                  // also a function of the C library (regexp.h)
__global__ void read_globals(int *out) { out[0] = step; }
"""


def test_a_global_named_like_a_c_library_function_is_the_modules_own():
    mod = SourceModule(GLOBAL_NAMES)
    step, size = mod.get_global("step")
    assert size == 4
    drv.memcpy_htod(step, np.array([42], np.int32))
    out = gpuarray.zeros(1, np.int32)
    mod.get_function("read_globals")(out, block=(1, 1, 1))
    assert out.get().tolist() == [42]
