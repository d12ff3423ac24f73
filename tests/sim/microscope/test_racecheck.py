"""The race check (settings.racecheck, CUDA_SIM_RACECHECK=1): races found whatever the order.

The simulator runs a block's threads one after another, so a missing barrier usually gives the
right answer by luck. The race check remembers, for each shared and global location, who wrote
and read it since the last barrier, so it finds the conflicting pair whatever order (and however
many worker threads) the simulator used, and names both threads, the array and both lines, as
compute-sanitizer's racecheck does on a GPU. These run the simulator whatever backend is chosen.
"""

import json
import re

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings

# One module of small kernels, each with or without its race (fewer compilations).
KERNELS = r"""
__global__ void rotate(const float *in, float *out, int n) {
    __shared__ float s[256];
    s[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 1) % n];
}
__global__ void rotate_synced(const float *in, float *out, int n) {
    __shared__ float s[256];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % n];
}
__global__ void histogram(const int *values, int *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) bins[values[i]]++;
}
__global__ void histogram_atomic(const int *values, int *bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[values[i]], 1);
}
__global__ void reduce_legacy(const float *in, float *out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        volatile float *v = s;  // warp-synchronous: no barrier, "the warp runs in lockstep"
        v[t] += v[t + 32]; v[t] += v[t + 16]; v[t] += v[t + 8];
        v[t] += v[t + 4]; v[t] += v[t + 2]; v[t] += v[t + 1];
    }
    if (t == 0) out[0] = s[0];
}
__global__ void reduce_syncwarp(const float *in, float *out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t < 32) {
        float v = s[t] + s[t + 32];
        for (int d = 16; d > 0; d /= 2) {
            __syncwarp(); s[t] = v; __syncwarp();
            v += s[t + d];
        }
        __syncwarp(); s[t] = v;
    }
    if (t == 0) out[0] = s[0];
}
__global__ void scale(float *x) {
    __shared__ float total;
    if (threadIdx.x == 0) total = 2.0f;  // a constant address: it must still be seen
    x[threadIdx.x] *= total;
}
__global__ void shift(int *out) {
    extern __shared__ int buf[];
    buf[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = buf[(threadIdx.x + 33) % blockDim.x];
}
__global__ void last(int *out) { out[0] = blockIdx.x; }
__global__ void bytes_by_all(unsigned char *out, int n) {
    for (int i = 0; i < n; i++) out[i] = (unsigned char)i;  // every thread, every byte
}
__device__ unsigned int arrived;
__global__ void last_block_sums(const int *in, int *partial, int *out) {
    // The "last block" pattern: each block writes its partial sum, fences, counts itself in
    // with an atomic; the last one to arrive reads them all.
    if (threadIdx.x != 0) return;
    partial[blockIdx.x] = in[blockIdx.x];
    __threadfence();
    if (atomicAdd(&arrived, 1u) == gridDim.x - 1) {
        int total = 0;
        for (int b = 0; b < gridDim.x; b++) total += partial[b];
        out[0] = total;
    }
}
__global__ void zeroed_by_block_0(float *sum) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *sum = 0.0f;   // then every block adds into it
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(sum, 1.0f);
}
__global__ void shared_bins(const int *values, int *out, int synced) {
    __shared__ int bins[4];
    if (threadIdx.x < 4) bins[threadIdx.x] = 0;  // cleared by four threads
    if (synced) __syncthreads();                  // (the same for every thread of the block)
    atomicAdd(&bins[values[threadIdx.x]], 1);
    __syncthreads();
    if (threadIdx.x < 4) out[threadIdx.x] = bins[threadIdx.x];
}
__global__ void rotate_fenced(const float *in, float *out, int n, int block_only) {
    __shared__ float s[256];
    if (block_only) __threadfence_block();        // a fence before both: not between them
    s[threadIdx.x] = in[threadIdx.x];
    if (block_only) __threadfence_block(); else __threadfence();  // where the barrier belongs
    out[threadIdx.x] = s[(threadIdx.x + 1) % n];
}
__global__ void rotate_fenced_first(const float *in, float *out, int n) {
    __shared__ float s[256];
    __threadfence_block();
    s[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 1) % n];
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(KERNELS)


def _checked(fn, *args, workers=None, **launch):
    with settings.changed(racecheck=True, **({"workers": workers} if workers else {})):
        fn(*args, **launch)


def _race(fn, *args, **launch):
    """The race the launch stops at: a LaunchError of kind "race", its facts as fields (the advice,
    which has none, only in its text)."""
    with pytest.raises(drv.LaunchError) as err:
        _checked(fn, *args, **launch)
    assert err.value.kind == "race", err.value
    return err.value


@pytest.mark.parametrize("workers", [1, 2, 7])
def test_a_missing_barrier_is_found_whatever_the_worker_count(mod, workers):
    x, y = gpuarray.to_gpu(np.arange(64, dtype=np.float32)), gpuarray.empty(64, np.float32)
    race = _race(mod.get_function("rotate"), x, y, np.int32(64), block=(64, 1, 1),
                 workers=workers)
    assert (race.kernel, race.array, race.space) == ("rotate", "s", "shared")  # the array, by name
    assert {race.first.line, race.second.line} == {"kernel.cu:4", "kernel.cu:5"}  # both lines
    assert race.first.thread != race.second.thread  # both threads
    message = str(race)
    assert "__syncthreads()" in message and "compute-sanitizer --tool racecheck" in message


def test_with_the_barrier_there_is_no_race(mod):
    x, y = gpuarray.to_gpu(np.arange(64, dtype=np.float32)), gpuarray.empty(64, np.float32)
    _checked(mod.get_function("rotate_synced"), x, y, np.int32(64), block=(64, 1, 1), workers=2)
    assert np.array_equal(y.get(), np.roll(np.arange(64), -1))


@pytest.mark.parametrize("block_only", [0, 1])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_fence_where_the_barrier_belongs_is_named_as_no_barrier(mod, block_only, workers):
    """__threadfence() or __threadfence_block() between the write and the other thread's read:
    the race is there all the same (no thread waits at a fence), and the error says the fence is
    what stands between them."""
    x, y = gpuarray.to_gpu(np.arange(64, dtype=np.float32)), gpuarray.empty(64, np.float32)
    race = _race(mod.get_function("rotate_fenced"), x, y, np.int32(64), np.int32(block_only),
                 block=(64, 1, 1), workers=workers)
    assert race.fenced and race.array == "s"
    assert "only a fence, at which no thread waits" in race.summary
    assert "is not a barrier" in str(race)
    before = _race(mod.get_function("rotate_fenced_first"), x, y, np.int32(64),
                   block=(64, 1, 1), workers=workers)
    assert not before.fenced and "only a fence" not in before.summary


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("blocks", [1, 8])
def test_lost_updates_of_a_racy_histogram_are_found(mod, workers, blocks):
    values = gpuarray.to_gpu(np.arange(256, dtype=np.int32) % 4)
    bins = gpuarray.zeros(4, np.int32)
    race = _race(mod.get_function("histogram"), values, bins, np.int32(256),
                 block=(256 // blocks, 1, 1), grid=(blocks, 1), workers=workers)
    assert (race.array, race.space) == ("bins", "global")
    message = str(race)
    assert "atomicAdd" in message  # a read-modify-write: the advice is an atomic
    assert "watches shared memory only" in message  # racecheck would not see it on a GPU


def test_atomics_are_not_races(mod):
    values = gpuarray.to_gpu(np.arange(256, dtype=np.int32) % 4)
    bins = gpuarray.zeros(4, np.int32)
    _checked(mod.get_function("histogram_atomic"), values, bins, np.int32(256), block=(64, 1, 1),
             grid=(4, 1))
    assert bins.get().tolist() == [64, 64, 64, 64]


def test_a_plain_write_and_another_threads_atomic_without_a_barrier_race(mod):
    values, out = gpuarray.to_gpu(np.arange(64, dtype=np.int32) % 4), gpuarray.zeros(4, np.int32)
    race = _race(mod.get_function("shared_bins"), values, out, np.int32(0), block=(64, 1, 1))
    assert (race.array, race.space) == ("bins", "shared")
    assert {race.first.does, race.second.does} == {"updates it atomically", "writes it"}
    assert "safe only against other atomics" in str(race)


def test_a_global_zeroed_by_one_block_races_with_the_other_blocks_atomics(mod):
    """Block 0's own atomic comes after its barrier, so it could not race with block 0's write;
    but it must not hide that write from the other blocks, which nothing orders with it."""
    race = _race(mod.get_function("zeroed_by_block_0"), gpuarray.zeros(1, np.float32),
                 block=(32, 1, 1), grid=(3, 1))
    assert (race.space, race.first.block, race.second.block) == ("global", (0, 0, 0), (1, 0, 0))
    assert (race.first.atomic, race.second.atomic) == (False, True)


def test_with_a_barrier_between_the_clearing_and_the_atomics_there_is_no_race(mod):
    values, out = gpuarray.to_gpu(np.arange(64, dtype=np.int32) % 4), gpuarray.zeros(4, np.int32)
    _checked(mod.get_function("shared_bins"), values, out, np.int32(1), block=(64, 1, 1),
             workers=2)
    assert out.get().tolist() == [16, 16, 16, 16]


def test_the_legacy_volatile_warp_reduction_is_the_race_it_is(mod):
    # every hazard lies between lanes of warp 0: there __syncwarp() is the right advice
    x, out = gpuarray.to_gpu(np.ones(64, np.float32)), gpuarray.zeros(1, np.float32)
    with pytest.raises(drv.LaunchError) as caught:
        _checked(mod.get_function("reduce_legacy"), x, out, block=(64, 1, 1))
    assert caught.value.within_warps and caught.value.count > 1 and caught.value.array == "s"
    assert "__syncwarp() is enough" in str(caught.value)


def _matmul_tiled(second_barrier):
    """matmul.cu's tiled kernel with its second __syncthreads() replaced by second_barrier."""
    from helpers.backend import CUDA_SRC

    source = (CUDA_SRC / "matmul.cu").read_text()
    loop = "            sum += As[ty][k] * Bs[k][tx];\n"
    changed = source.replace(loop + "        __syncthreads();\n", loop + second_barrier)
    assert changed != source
    return SourceModule('#line 1 "matmul.cu"\n' + changed).get_function("matmul_tiled")


@pytest.mark.parametrize("second_barrier", ["", "        __syncwarp();\n"])
def test_a_tiled_matmul_without_its_second_barrier_is_not_advised_syncwarp(second_barrier):
    # The first hazard the simulator meets is between two lanes of warp 0; others are between
    # warps, so __syncwarp() would not do (with it in place, the race check finds one between
    # two warps: Bs[32], threads (0, 0, 0) and (0, 2, 0)).
    m, n = gpuarray.to_gpu(np.ones((40, 48), np.float32)), gpuarray.to_gpu(np.ones((48, 40), np.float32))
    c = gpuarray.zeros((40, 40), np.float32)
    with pytest.raises(drv.LaunchError) as caught:
        _checked(_matmul_tiled(second_barrier), m, n, c, np.int32(40), np.int32(48), np.int32(40),
                 block=(16, 16, 1), grid=(3, 3))
    assert caught.value.kind == "race" and not caught.value.within_warps
    assert "__syncwarp" not in str(caught.value) and "__syncthreads()" in str(caught.value)


def test_the_same_reduction_with_syncwarp_is_clean(mod):
    x, out = gpuarray.to_gpu(np.arange(64, dtype=np.float32)), gpuarray.zeros(1, np.float32)
    _checked(mod.get_function("reduce_syncwarp"), x, out, block=(64, 1, 1))
    assert out.get()[0] == np.arange(64).sum()


def test_a_shared_scalar_written_by_thread_0_and_read_without_a_barrier(mod):
    x = gpuarray.to_gpu(np.ones(64, np.float32))
    race = _race(mod.get_function("scale"), x, block=(64, 1, 1))
    assert (race.array, race.element, race.space) == ("total", 0, "shared")


def test_dynamic_shared_memory_races_are_found_and_named_as_the_kernel_declares_them(mod):
    out = gpuarray.zeros(64, np.int32)
    race = _race(mod.get_function("shift"), out, block=(64, 1, 1), shared=256)
    assert (race.array, race.element, race.space) == ("buf", 0, "shared")


def test_blocks_writing_one_element_race_and_the_advice_says_why(mod):
    race = _race(mod.get_function("last"), gpuarray.zeros(1, np.int32), block=(1, 1, 1),
                 grid=(4, 1))
    assert race.hazard == "write-after-write" and race.first.block != race.second.block
    assert "Blocks cannot wait" in str(race)


@pytest.mark.parametrize("n", [4, 8, 9])
def test_threads_storing_the_same_bytes_one_by_one_race(mod, n):
    """Global memory is remembered word by word: each thread's four byte stores into a word all
    count, not only its last (n = 4 and 8 were missed: the next thread's first byte met the last
    thread's last byte only)."""
    race = _race(mod.get_function("bytes_by_all"), gpuarray.zeros(16, np.uint8), np.int32(n),
                 block=(2, 1, 1), grid=(1, 1))
    assert (race.hazard, race.element, race.space) == ("write-after-write", 0, "global")


def test_a_kernel_that_orders_blocks_with_a_fence_is_not_reported(mod):
    x = gpuarray.to_gpu(np.arange(8, dtype=np.int32))
    partial, out = gpuarray.zeros(8, np.int32), gpuarray.zeros(1, np.int32)
    _checked(mod.get_function("last_block_sums"), x, partial, out, block=(32, 1, 1), grid=(8, 1))
    assert out.get()[0] == 28


# ---- the course's own kernels are race-free: no false alarm ------------------------------------
def _course_launches():
    """(file, kernel, arguments, block, grid) of each shared-memory kernel of chapters 06-08."""
    f32 = np.float32
    a = gpuarray.to_gpu(np.ones((45, 77), f32))
    at = gpuarray.zeros((77, 45), f32)
    x = gpuarray.to_gpu(np.ones(3000, f32))
    sums, total = gpuarray.zeros(12, f32), gpuarray.zeros(1, f32)
    m = gpuarray.to_gpu(np.ones((37, 50), f32))
    n = gpuarray.to_gpu(np.ones((50, 21), f32))
    c = gpuarray.zeros((37, 21), f32)
    i32 = np.int32
    yield from (("transpose.cu", k, (a, at, i32(77), i32(45)), (32, 8, 1), (3, 2))
                for k in ("transpose_naive", "transpose_tiled", "transpose_padded"))
    yield from (("reduction.cu", k, (x, sums, i32(3000)), (256, 1, 1), (12, 1))
                for k in ("reduce_interleaved_divergent", "reduce_interleaved", "reduce_sequential",
                          "reduce_first_add", "reduce_warp_shuffle"))
    yield from (("reduction.cu", k, (x, total, i32(3000)), (256, 1, 1), (5, 1))
                for k in ("reduce_grid_stride", "reduce_grid_stride_x4"))
    pixels, bins = gpuarray.to_gpu(np.arange(3000, dtype=np.uint8)), gpuarray.zeros(256, np.uint32)
    yield from (("histogram.cu", k, (pixels, bins, i32(3000)), (256, 1, 1), (3, 1))
                for k in ("histogram_global", "histogram_shared", "histogram_shared_x16",
                          "histogram_shared_runs"))
    yield "histogram.cu", "histogram_once", (pixels, bins, gpuarray.zeros(257, np.uint32),
                                             i32(3000)), (256, 1, 1), (3, 1)
    yield from (("matmul.cu", k, (m, n, c, i32(37), i32(50), i32(21)), (16, 16, 1), (2, 3))
                for k in ("matmul_naive", "matmul_tiled"))


def test_the_course_kernels_have_no_race():
    from helpers.backend import CUDA_SRC

    for file, kernel, args, block, grid in _course_launches():
        source = f'#line 1 "{file}"\n' + (CUDA_SRC / file).read_text()
        with settings.changed(racecheck=True):
            SourceModule(source).get_function(kernel)(*args, block=block, grid=grid)


# ---- the prediction of compute-sanitizer's line, against what it printed on an H200 -------------
_SANITIZER_RACE = re.compile(r"Race reported between (Write|Read) access at \S+ in (\S+)\s*"
                             r"(?:=+\s*)?and (Write|Read) access at \S+ in (\S+) \[(\d+) hazards?\]")
_PREDICTED = re.compile(r"Race reported between (Write|Read) access at (\S+?):\w+ and "
                        r"(Write|Read) access at (\S+?):\w+ \[(\d+) hazards?\]")


def _stored_outputs(notebook):
    """The text of every stored output of a notebook (the H200's: design.md)."""
    from helpers.backend import CUDA_SRC

    cells = json.loads((CUDA_SRC.parent / "notebooks" / notebook).read_text())["cells"]
    texts = [o.get("text", "") for c in cells for o in c.get("outputs", ())]
    return "".join("".join(t) if isinstance(t, list) else t for t in texts)


@pytest.mark.parametrize("notebook, file, kernel", [
    ("06_shared_memory.ipynb", "block_reverse.cu", "reverse_block_unsynced"),
    ("09_debugging_and_profiling.ipynb", "bugs/missing_barrier.cu", "reverse_blocks")])
def test_the_predicted_racecheck_line_is_the_one_an_h200_printed(notebook, file, kernel):
    # The notebooks launch 1024 floats in 4 blocks of 256 under compute-sanitizer: racecheck named
    # the write first and counted the hazards by the byte.
    from helpers.backend import CUDA_SRC

    real = _SANITIZER_RACE.search(_stored_outputs(notebook))
    assert real, f"{notebook} holds no racecheck report"
    name = file.rpartition("/")[2]
    fn = SourceModule(f'#line 1 "{name}"\n' + (CUDA_SRC / file).read_text()).get_function(kernel)
    x, y = gpuarray.to_gpu(np.arange(1024, dtype=np.float32)), gpuarray.empty(1024, np.float32)
    args = (x, y, np.int32(1024)) if kernel == "reverse_blocks" else (x, y)
    message = str(_race(fn, *args, block=(256, 1, 1), grid=(4, 1)))  # the predicted line: text
    predicted = _PREDICTED.search(message)
    assert predicted and predicted.groups() == real.groups(), (predicted, real)
