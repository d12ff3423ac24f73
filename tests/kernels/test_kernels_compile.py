"""What the compiler does with a kernel, the same on a GPU (nvcc, through PyCUDA) and on the CPU
simulator: floats fused as nvcc fuses them, a learner's macros left alone, host library calls
refused, warnings shown, a function declared but never defined named.

This file runs on whichever backend helpers.backend chose, as tests/kernels/test_kernels.py does.
"""

import re

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray
from kernel_sources import accumulated


def compiled_anew(source, folder):
    """source compiled into ``folder``, a new, empty compile cache (PyCUDA's ``cache_dir`` and the
    simulator's mean the same), so that no cached module answers in place of the compiler: its
    warnings and errors are seen anew. (Not a unique comment in the source: each run would then
    leave one more module in the user's cache.)"""
    return SourceModule(source, cache_dir=str(folder))


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


# ---- host functions in device code ---------------------------------------------------------------
@pytest.mark.parametrize("call", ["exit(1)", "rand()", 'fopen("out.txt", "w")',
                                  'fprintf(stderr, "x")'])
def test_a_host_library_call_in_a_kernel_is_a_compile_error(call, tmp_path):
    name = call.split("(")[0]
    src = f'#line 1 "host.cu"\n__global__ void k(int *x) {{\n    if (x[0]) {call};\n}}\n'
    with pytest.raises(drv.CompileError) as err:
        compiled_anew(src, tmp_path)
    text = str(err.value)
    assert f'calling a __host__ function("{name}")' in text, text
    assert re.search(r"host\.cu[:(]\s*2\b", text), text


# POSIX's functions: not in the C library's list the prelude refuses by name, so the simulator finds
# them among the built object's undefined symbols (helpers/sim/compile/device_calls.py).
# (Four calls, one of each kind: each refusal is a compile, a link and a rebuild with lines.)
POSIX_CALLS = ['open("/tmp/escaped", O_WRONLY | O_CREAT, 0600)', "fork()", "kill(0, SIGKILL)",
               "sleep(1)"]


@pytest.mark.parametrize("call", POSIX_CALLS, ids=lambda c: c.split("(")[0])
def test_a_posix_call_in_a_kernel_is_a_compile_error_that_names_its_line(call, tmp_path):
    name = call.split("(")[0]
    src = (f'#line 1 "posix.cu"\n#include <fcntl.h>\n#include <signal.h>\n#include <unistd.h>\n'
           f"__global__ void k(int *x) {{\n    if (x[0]) {call};\n}}\n")
    with pytest.raises(drv.CompileError) as err:
        compiled_anew(src, tmp_path)
    text = str(err.value)
    assert f'calling a __host__ function("{name}")' in text, text
    assert re.search(r"posix\.cu[:(]\s*5\b", text), text
    if BACKEND == "simulator":  # the facts, for checkers and the grader
        assert (err.value.function, err.value.file, err.value.line) == (name, "posix.cu", 5)


@pytest.mark.skipif(BACKEND != "simulator", reason="x86-64 assembly: nvcc reads asm as PTX")
def test_an_asm_system_call_in_a_kernel_is_refused(tmp_path):
    src = ('#line 1 "asm.cu"\n__global__ void k(long *x) {\n    long r;\n'
           '    asm volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory");\n'
           "    x[0] = r;\n}\n")
    with pytest.raises(drv.CompileError) as err:
        compiled_anew(src, tmp_path)
    assert (err.value.function, err.value.line) == ("syscall", 3), str(err.value)


def test_what_device_code_may_call_compiles_and_runs():
    src = r"""
    __global__ void allowed(float *x, int *out) {
        int *p = (int *)malloc(4 * sizeof(int));
        memset(p, 0, 4 * sizeof(int));
        p[1] = 5;
        memcpy(out, p, 4 * sizeof(int));
        free(p);
        assert(out[1] == 5);
        int *q = new int[2];
        q[0] = (int)(clock() >= 0);
        x[0] = sqrtf(x[0]) + expf(0.0f) + fabsf(-1.0f) + (float)(clock64() >= 0) + labs(-2L)
               + (float)(sin(0.0) + pow(2.0, 0.0)) - q[0];
        delete[] q;
        if (x[0] < 0) printf("%f\n", x[0]);
    }
    """
    x, out = gpuarray.to_gpu(np.array([4.0], np.float32)), gpuarray.zeros(4, np.int32)
    SourceModule(src).get_function("allowed")(x, out, block=(1, 1, 1))
    assert x.get()[0] == 7 and out.get().tolist() == [0, 5, 0, 0]


# ---- what the compiler says ------------------------------------------------------------------------
def test_a_printf_format_that_does_not_fit_is_a_warning(tmp_path):
    src = '__global__ void k(int n) {\n    printf("%f\\n", n);\n}\n'
    with pytest.warns(UserWarning, match="compiler succeeded, but said the following") as said:
        compiled_anew(src, tmp_path)
    assert any("format" in str(w.message) for w in said)


def test_a_device_function_declared_but_never_defined_is_named(tmp_path):
    src = ('#line 1 "undefined.cu"\n__device__ float helper(float x);\n'
           "__global__ void k(float *x) {\n    x[0] = helper(x[1]);\n}\n")
    with pytest.raises(drv.CompileError) as err:
        compiled_anew(src, tmp_path)
    text = str(err.value)
    assert "Unresolved extern function 'helper'" in text, text
    if BACKEND == "simulator":  # nvcc names no line; the simulator names the call's
        assert "undefined.cu:3: error: helper is declared but never defined" in text, text


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
