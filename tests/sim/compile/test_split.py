"""Kernels with barriers run as loops over their threads (helpers/sim/compile/split.py): which
kernels are rewritten, and that a rewritten kernel gives what its fibers give, bit for bit, its
errors included (``-DSIM_NO_SPLIT`` keeps the fibers)."""

import numpy as np
import pytest

from kernel_sources import ROOT

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule

FIBERS = ["-DSIM_NO_SPLIT"]


def both(source, name, **kwargs):
    """The kernel built rewritten and built with fibers: (split, fibers)."""
    split = SourceModule(source, **kwargs).get_function(name)
    fibers = SourceModule(source, options=FIBERS, **kwargs).get_function(name)
    return split, fibers


def is_split(source, name):
    return not SourceModule(source).module.kernels[name].fibers


REDUCTION = (ROOT / "bench" / "reduction.cu").read_text()


def test_the_tree_reduction_is_rewritten_and_sums_as_its_fibers_do():
    split, fibers = both(REDUCTION, "block_sum")
    assert is_split(REDUCTION, "block_sum")
    assert SourceModule(REDUCTION, options=FIBERS).module.kernels["block_sum"].fibers
    x = gpuarray.to_gpu(np.random.default_rng(3).standard_normal(100_003).astype(np.float32))
    blocks = -(-x.size // 256)
    sums = [gpuarray.zeros(blocks, np.float32) for _ in range(2)]
    for f, out in zip((split, fibers), sums):
        f(x, out, np.int32(x.size), block=(256, 1, 1), grid=(blocks, 1))
    assert np.array_equal(sums[0].get().view(np.uint32), sums[1].get().view(np.uint32))


# Kernels the rewriting leaves to the fibers, and why.
LEFT_TO_FIBERS = {
    "a warp function": "__global__ void k(int *x) { int v = x[threadIdx.x]; __syncthreads();"
                       " x[threadIdx.x] = __shfl_down_sync(0xffffffff, v, 1); }",
    "a barrier in an expression": "__global__ void k(int *x) { int c = __syncthreads_count(x[0]);"
                                  " x[threadIdx.x] = c; }",
    "a __device__ function that waits": "__device__ void wait() { __syncthreads(); }\n"
                                        "__global__ void k(int *x) { wait(); x[threadIdx.x] = 1; }",
    "cooperative groups": "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                          "extern \"C\" __global__ void k(int *x) { auto t = cg::tiled_partition"
                          "<8>(cg::this_thread_block()); t.sync(); x[threadIdx.x] = 1; }",
    "a scalar without a value in scope": "__global__ void k(int *x) { int v; v = x[0];"
                                         " __syncthreads(); x[threadIdx.x] = v; }",
    "a barrier in a switch": "__global__ void k(int *x) { switch (x[0]) { case 0: __syncthreads();"
                             " } x[threadIdx.x] = 1; }",
    "a macro that hides a barrier": "#define WAIT __syncthreads()\n__global__ void k(int *x) {"
                                    " x[threadIdx.x] = 1; WAIT; x[0] = 2; }",
}


@pytest.mark.parametrize("source", LEFT_TO_FIBERS.values(), ids=LEFT_TO_FIBERS.keys())
def test_what_the_rewriting_cannot_read_with_certainty_keeps_its_fibers(source):
    module = SourceModule(source, no_extern_c="#include" in source).module
    assert all(k.fibers for k in module.kernels.values())


def test_only_the_kernels_that_call_a_waiting_function_keep_their_fibers():
    """A module with a warp function: its other kernels, with barriers or without, run as loops."""
    source = ("__device__ int neighbour(int v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
              "__device__ int twice(int v) { return 2 * neighbour(v); }\n"
              "__global__ void shuffles(int *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }\n"
              "__global__ void waits(int *x) { int v = x[threadIdx.x]; __syncthreads();"
              " x[threadIdx.x] = v + 1; }\n"
              "__global__ void plain(int *x) { x[threadIdx.x] += 1; }\n")
    kernels = SourceModule(source).module.kernels
    assert {name: k.fibers for name, k in kernels.items()} == {
        "shuffles": True, "waits": False, "plain": False}


# Kernels rewritten, each run both ways on the same input: outputs, bit for bit.
SAME_RESULTS = {
    # a barrier in a loop whose trip count differs between threads, and threads that return early
    "uneven loops and early returns": (
        "__global__ void k(float *x, int n) { __shared__ float s[64]; int t = threadIdx.x;"
        " if (t >= n) return; s[t] = x[t]; for (int i = 0; i < t % 5; i++) { __syncthreads();"
        " s[t] += s[(t + 1) % n] * 0.5f; } x[t] = s[(t + 7) % n]; }", 64, 50),
    # no barrier between a write and another thread's read: the race reads as the fibers read it
    "a race": (
        "__global__ void k(float *x, int n) { __shared__ float s[64]; int t = threadIdx.x;"
        " s[t] = x[t]; x[t] = s[(t + 1) % 64] + s[(t + 63) % 64]; __syncthreads();"
        " x[t] += s[t]; }", 64, 64),
    # two and three dimensional blocks, a moved array and a pointer, constexpr
    "a 2D block, an array and a pointer": (
        "__global__ void k(float *x, int n) { constexpr int W = 8; __shared__ float s[8][8];"
        " const int tx = threadIdx.x, ty = threadIdx.y; float acc[3]; float *const p = x + ty * W;"
        " for (int r = 0; r < 3; r++) { s[ty][tx] = p[tx] * (r + 1); __syncthreads();"
        " acc[r] = s[tx][ty]; __syncthreads(); } p[tx] = acc[0] + acc[1] * acc[2]; }",
        (8, 8, 1), 64),
    # each thread changes the parameters, points to one, and reads them after a barrier
    "parameters changed by each thread": (
        "__global__ void k(float *x, int n) { n += threadIdx.x; x += 1; int *pn = &n;"
        " __syncthreads(); x[(int)threadIdx.x - 1] = *pn + n; }", 64, 3),
    "printf in order, a string's return no return": (
        "__global__ void k(float *x, int n) { int t = threadIdx.x + 4 * threadIdx.z;"
        " printf(\"a%d \", t); __syncthreads(); printf(\"b%d return \", t); x[t] = t; }",
        (2, 1, 2), 8),
}


@pytest.mark.parametrize("case", SAME_RESULTS.values(), ids=SAME_RESULTS.keys())
def test_a_rewritten_kernel_gives_what_its_fibers_give(case, capfd):
    source, block, n = case
    block = block if isinstance(block, tuple) else (block, 1, 1)
    assert is_split(source, "k")
    x = np.random.default_rng(7).standard_normal(64).astype(np.float32)
    outputs, printed = [], []
    for f in both(source, "k"):
        d = gpuarray.to_gpu(x)
        f(d, np.int32(n), block=block)
        drv.Context.synchronize()
        outputs.append(d.get().view(np.uint32))
        printed.append(capfd.readouterr().out)
    assert np.array_equal(*outputs)
    assert printed[0] == printed[1]


def launch_error(f, *args, **kwargs):
    with pytest.raises(drv.LaunchError) as err:
        f(*args, **kwargs)
        drv.Context.synchronize()
    e = err.value
    return e.kind, e.thread, e.block, e.line, str(e)


ERRORS = {
    "threads at two barriers": (
        "__global__ void k(float *x) { int t = threadIdx.x;\n if (t < 5) { __syncthreads(); }\n"
        " else { __syncthreads(); }\n x[t] = 1; }"),
    "a fault after a barrier": (
        "__global__ void k(float *x) { int t = threadIdx.x; __syncthreads();\n"
        " float *p = t == 37 ? (float *)8 : x; p[t] = 1; }"),
}


@pytest.mark.parametrize("source", ERRORS.values(), ids=ERRORS.keys())
def test_a_rewritten_kernels_errors_are_its_fibers_errors(source):
    assert is_split(source, "k")
    x = gpuarray.zeros(64, np.float32)
    got = [launch_error(f, x, block=(64, 1, 1)) for f in both(source, "k")]
    assert got[0] == got[1]


def test_a_compile_error_is_said_once_as_in_the_text_as_written():
    source = ("__global__ void k(float *x) { int t = threadIdx.x; __syncthreads();\n"
              " x[t] = undefined_name; }")
    messages = []
    for options in ([], FIBERS):
        with pytest.raises(drv.CompileError) as err:
            SourceModule(source, options=options)
        messages.append(str(err.value).split("[command:")[0])
    assert messages[0] == messages[1] and "undefined_name" in messages[0]


@pytest.mark.parametrize("name", ["barrier_in_branch.cu", "missing_barrier.cu"])
def test_the_bug_gallerys_barrier_bugs_are_rewritten(name):
    source = (ROOT / "cuda_src" / "bugs" / name).read_text()
    module = SourceModule(source).module
    assert not any(k.fibers for k in module.kernels.values() if "__syncthreads" in source)
