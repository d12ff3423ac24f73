"""What a failed launch says (run/report.py): a kernel's fault never crashes the process, and
its error names the kernel, the block, the thread and the line, as a GPU's tools would."""

import inspect
import platform
import sys

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings


KERNELS = r"""
__global__ void copy(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];                                   // no bounds guard
}
__global__ void shared_overrun(int *out, int k) {
    __shared__ int s[32];
    s[threadIdx.x + k] = 1;
    __syncthreads();
    out[0] = s[0];
}
__global__ void local_overrun(int *out, int k) {
    int a[4] = {1, 2, 3, 4};
    out[threadIdx.x] = a[threadIdx.x + k];
}
__global__ void divergent_barriers(int *out) {
    if (threadIdx.x < 16) {
        __syncthreads();
    } else {
        __syncthreads();
    }
}
__global__ void exited_lane(int *out) {
    if (threadIdx.x == 5) return;
    out[threadIdx.x] = __shfl_sync(0xffffffff, (int)threadIdx.x, 0);
}
__global__ void checks(int *out) { assert(threadIdx.x < 3); }
__global__ void spin(volatile int *flag) { while (flag[0] == 0) { } }
__global__ void dynamic(float *out) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = 1.0f;
    out[threadIdx.x] = buf[threadIdx.x];
}
__global__ void chase(float **pointers) { pointers[0][0] = 1.0f; }
__global__ void deep(float *out, int k) {
    float big[200000];                                // 800 KB: more than a thread's stack
    for (int i = 0; i < 200000; i++) big[i] = i * k;
    out[0] = big[k];
}
__global__ void half_mask(int *out) {
    out[threadIdx.x] = __shfl_sync(0x0000ffff, (int)threadIdx.x, 0);
}
__global__ void alone_in_the_warp(int *out, int wait) {
    if (threadIdx.x % 32 == 0)
        out[threadIdx.x] = __shfl_sync(0xffffffff, (int)threadIdx.x, 0);
    if (wait)
        __syncthreads();
}
__global__ void first_block_fails_last(int spin) {
    if (blockIdx.x == 0)
        for (volatile int i = 0; i < spin; i = i + 1) { }
    assert(blockIdx.x != 0 && blockIdx.x != gridDim.x - 1);
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule('#line 1 "faults.cu"\n' + KERNELS)


def launch_error(fn, *args, **kw):
    """The LaunchError the launch raises: its facts are fields, its text the report under test."""
    with pytest.raises(drv.LaunchError) as err:
        fn(*args, **kw)
    return err.value


def test_write_past_the_end_names_kernel_block_and_thread(mod):
    n = 1000
    a, b = gpuarray.zeros(n, np.float32), gpuarray.zeros(n, np.float32)
    err = launch_error(mod.get_function("copy"), a, b, np.int32(n), block=(256, 1, 1), grid=(4, 1))
    assert (err.kind, err.kernel, err.block, err.thread, err.line) == \
        ("out of bounds", "copy", (3, 0, 0), (232, 0, 0), "faults.cu:4")
    msg = str(err)
    assert "illegal memory access" in msg and "'copy'" in msg
    assert "block (3, 0, 0)" in msg and "thread (232, 0, 0)" in msg
    assert "past the end of a 4000-byte allocation" in msg


def test_of_two_failed_blocks_the_lower_one_is_reported_whatever_the_timing(mod):
    """Block 0 fails long after the last block has: a run of the blocks in order meets block 0's
    failure first, and so does every run, on any number of workers (include/sim_grid.h:
    record_error)."""
    with settings.changed(workers=2):
        err = launch_error(mod.get_function("first_block_fails_last"), np.int32(20_000_000),
                           block=(32, 1, 1), grid=(64, 1))
    assert (err.kind, err.block, err.thread) == ("assert", (0, 0, 0), (0, 0, 0))


# A module without barriers, warp functions or __device__ functions runs each block as a loop
# that the compiler may vectorise across threads, and that writes no thread's indices where the
# runtime reads them (include/sim_launch.h: run_block_fast): a block that fails is run again, on
# the loop that writes them, to name the thread (include/sim_grid.h: name_the_thread).
PLAIN = r"""
__global__ void scale(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2.0f * in[i];                            // no bounds guard
}
__global__ void say_then_check(int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    printf("thread %d\n", i);
    assert(i != n);                                   // the assert
}
__global__ void fails_once(int *armed, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 300 && armed[0]) {
        armed[0] = 0;
        out[n] = 1.0f;                                // the write past the end, once
    }
}
"""


# The same with a __device__ function: such a module keeps threadIdx.x in a register (r14, on
# x86-64 with g++: include/sim_launch.h), which the loop that names the thread must set as well.
DEVICE_FUNCTION = "__device__ float twice(float v) { return 2.0f * v; }\n"


@pytest.fixture(scope="module", params=["kernels only", "with a __device__ function"])
def plain(request):
    extra = DEVICE_FUNCTION if request.param != "kernels only" else ""
    return SourceModule('#line 1 "plain.cu"\n' + PLAIN.lstrip("\n") + extra)


def plain_line(marker):
    return f"plain.cu:{line_of(PLAIN.lstrip(chr(10)), marker)}"


def test_a_fault_in_a_block_run_as_a_plain_loop_names_its_thread_and_line(plain):
    n = 1000  # 4000 bytes: the first byte past the end is on the guard page
    a, b = gpuarray.zeros(n, np.float32), gpuarray.zeros(n, np.float32)
    err = launch_error(plain.get_function("scale"), a, b, np.int32(n), block=(256, 1, 1),
                       grid=(4, 1))
    assert (err.kind, err.is_write, err.block, err.thread, err.line) == \
        ("out of bounds", False, (3, 0, 0), (232, 0, 0), plain_line("no bounds guard"))
    assert "block (3, 0, 0), thread (232, 0, 0)" in str(err)
    assert "1 byte past the end of a 4000-byte allocation" in str(err)


def test_an_assert_in_a_plain_loop_names_its_thread_and_prints_each_line_once(plain, capfd):
    capfd.readouterr()
    err = launch_error(plain.get_function("say_then_check"), np.int32(300), block=(256, 1, 1),
                       grid=(2, 1))
    assert (err.kind, err.block, err.thread, err.line) == \
        ("assert", (1, 0, 0), (44, 0, 0), plain_line("the assert"))
    # the second run of the failed block, which names the thread, prints nothing
    assert sorted(capfd.readouterr().out.splitlines()) == sorted(f"thread {i}" for i in range(301))


def test_a_block_that_fails_only_once_is_reported_without_a_thread(plain):
    armed, out = gpuarray.to_gpu(np.ones(1, np.int32)), gpuarray.zeros(1000, np.float32)
    err = launch_error(plain.get_function("fails_once"), armed, out, np.int32(1000),
                       block=(256, 1, 1), grid=(4, 1))
    assert (err.kind, err.is_write, err.block, err.thread, err.line) == \
        ("out of bounds", True, (1, 0, 0), None, plain_line("the write past the end, once"))
    assert "block (1, 0, 0), by one of its threads (which one is not known" in str(err)


def test_use_after_free_is_caught(mod):
    a, b = drv.mem_alloc(4096), drv.mem_alloc(4096)
    stale = np.intp(int(b))
    b.free()
    freed_here = f"freed at test_report.py:{inspect.currentframe().f_lineno - 1}"
    # a freed address given to a kernel is refused before it runs, naming the allocation and
    # where it was freed, whether the kernel is given the allocation or its address
    with pytest.raises(drv.LogicError, match=rf"parameter #1 .*'copy'.*allocation of 4,096 bytes "
                                             rf"at 0x{int(stale):x}, {freed_here} \(a use after free"):
        mod.get_function("copy")(a, stale, np.int32(1), block=(1, 1, 1))
    with pytest.raises(drv.LogicError, match=rf"has been freed: .*4,096 bytes.*{freed_here}"):
        mod.get_function("copy")(a, b, np.int32(1), block=(1, 1, 1))
    # one the kernel finds in memory faults where it is used
    pointers = gpuarray.to_gpu(np.array([int(stale)], np.uint64))
    err = launch_error(mod.get_function("chase"), pointers.gpudata, block=(1, 1, 1))
    assert (err.kind, err.is_write, err.address) == ("use after free", True, int(stale))


def test_shared_and_local_overruns_name_the_file_and_line(mod):
    out = gpuarray.zeros(64, np.int32)
    err = launch_error(mod.get_function("shared_overrun"), out, np.int32(1), block=(32, 1, 1))
    assert (err.kind, err.thread, err.line, err.element) == ("array bounds", (31, 0, 0),
                                                             "faults.cu:8", 32)
    assert "faults.cu:8" in str(err) and "thread (31, 0, 0)" in str(err)
    assert "index 32 of an array declared int [32]" in str(err), str(err)
    assert (err.declared, err.length) == ("int [32]", 32)  # fields for checkers, not the text
    err = launch_error(mod.get_function("local_overrun"), out, np.int32(2), block=(4, 1, 1))
    assert (err.kind, err.line, err.length) == ("array bounds", "faults.cu:14", 4)
    assert err.element == err.thread[0] + 2 and "of an array declared int [4]" in str(err)
    err = launch_error(mod.get_function("local_overrun"), out, np.int32(-9), block=(4, 1, 1))
    # threadIdx.x + k is unsigned: the index is what the kernel computed, not a negative number
    assert err.element == (err.thread[0] - 9) % 2**32


def test_threads_at_different_barriers_raise_instead_of_hanging(mod):
    err = launch_error(mod.get_function("divergent_barriers"), gpuarray.zeros(1, np.int32),
                       block=(32, 1, 1))
    assert err.kind == "divergent barrier" and "faults.cu:20" in str(err) and "faults.cu:18" in str(err)
    # the two barriers are fields too: the culprit's at line, the first threads' at barrier
    assert {err.line.rsplit("/", 1)[-1], err.barrier.rsplit("/", 1)[-1]} == {"faults.cu:20",
                                                                             "faults.cu:18"}


def test_a_mask_naming_an_exited_lane_raises(mod):
    err = launch_error(mod.get_function("exited_lane"), gpuarray.zeros(32, np.int32),
                       block=(32, 1, 1))
    assert (err.kind, err.line) == ("warp mask", "faults.cu:25")
    assert "lane 5" in str(err) and "exited" in str(err)
    assert (err.rule, err.mask, err.lane) == ("names an exited lane", 0xFFFFFFFF, 5)


def test_a_mask_that_leaves_out_the_calling_lane_raises_naming_that_lane(mod):
    err = launch_error(mod.get_function("half_mask"), gpuarray.zeros(32, np.int32),
                       block=(32, 1, 1))
    assert (err.kind, err.rule, err.mask, err.lane) == ("warp mask", "leaves out the caller",
                                                        0x0000FFFF, 16)
    assert err.thread == (16, 0, 0) and "does not name the calling lane" in str(err)


@pytest.mark.parametrize("wait, barrier", [(0, None), (1, "faults.cu:47")])
def test_lanes_that_never_arrive_are_named_with_the_threads_that_wait(mod, wait, barrier):
    """Lane 0 of each warp alone in a warp function: the threads that wait there, and the line of
    the barrier where the others wait, if they do (None when they have returned)."""
    err = launch_error(mod.get_function("alone_in_the_warp"), gpuarray.zeros(96, np.int32),
                       np.int32(wait), block=(96, 1, 1))
    assert (err.kind, err.rule, err.mask, err.lane) == ("warp mask", "lanes never arrive",
                                                        0xFFFFFFFF, None)
    assert (err.waiting, err.barrier, err.line) == ((0, 32, 64), barrier, "faults.cu:45")


def test_assert_reports_the_condition(mod):
    err = launch_error(mod.get_function("checks"), gpuarray.zeros(1, np.int32), block=(8, 1, 1))
    assert (err.kind, err.thread, err.line) == ("assert", (3, 0, 0), "faults.cu:27")
    msg = str(err)
    assert "device-side assert triggered" in msg and "threadIdx.x < 3" in msg
    assert "thread (3, 0, 0)" in msg


def test_dynamic_shared_memory_past_the_launch_size(mod):
    out = gpuarray.zeros(64, np.float32)
    mod.get_function("dynamic")(out, block=(64, 1, 1), shared=256)
    assert (out.get() == 1).all()
    err = launch_error(mod.get_function("dynamic"), out, block=(64, 1, 1))
    assert (err.space, err.offset) == ("shared", 0)  # buf[0], the first byte past shared=0
    assert "shared=" in str(err)


def test_stack_overflow_is_reported(mod):
    err = launch_error(mod.get_function("deep"), gpuarray.zeros(1, np.float32), np.int32(1),
                       block=(1, 1, 1))
    assert (err.kind, err.line) == ("stack overflow", "faults.cu:35") and "stack overflowed" in str(err)


GLOBAL_FAULTS = r"""
__device__ float load(const float *p, int i) {
    return p[i];                                      // the inlined read
}
__device__ void store(float *p, int i, float v) {
    p[i] = v;                                         // the inlined write
}
__global__ void read_past(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + 64];                   // the read past the end
}
__global__ void write_past(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + 64] = 2.0f * in[i];            // the write past the end
}
__global__ void through_functions(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) store(out, i, load(in, i + 64));
}
__global__ void stores_through_function(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) store(out, i + 64, in[i]);
}
"""


SLACK_WRITES = r"""
__global__ void one_too_many(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 1.0f;                        // the write one past the end
}
__global__ void shift_left(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i - 1] = in[i];                    // the write before the start
}
"""


def line_of(source, marker):
    """The 1-based line of source that holds marker."""
    return next(n for n, text in enumerate(source.splitlines(), 1) if marker in text)


@pytest.mark.parametrize("kernel, is_write, marker", [
    ("read_past", False, "the read past"), ("write_past", True, "the write past"),
    ("through_functions", False, "the inlined read"),
    ("stores_through_function", True, "the inlined write")])
def test_a_global_out_of_bounds_access_names_its_line(kernel, is_write, marker):
    # the line of the access itself, as memcheck names it: inside an inlined __device__ function,
    # that function's line in the learner's file
    source = '#line 1 "oob.cu"\n' + GLOBAL_FAULTS.lstrip("\n")
    n = 1024  # 4096 bytes: the first byte past the end is on the guard page
    a, b = gpuarray.zeros(n, np.float32), gpuarray.zeros(n, np.float32)
    with pytest.raises(drv.LaunchError) as caught:
        SourceModule(source).get_function(kernel)(a, b, np.int32(n), block=(256, 1, 1),
                                                  grid=(4, 1))
    err = caught.value
    where = f"oob.cu:{line_of(GLOBAL_FAULTS.lstrip(chr(10)), marker)}"
    assert (err.kind, err.is_write, err.line) == ("out of bounds", is_write, where)
    assert err.offset >= n * 4 and f"at {where}: a {'write to' if is_write else 'read of'}" in str(err)


def test_a_fault_under_the_race_check_names_its_line_too():
    # the instrumented build has line tables of its own
    source = '#line 1 "oob.cu"\n' + GLOBAL_FAULTS.lstrip("\n")
    a, b = gpuarray.zeros(1024, np.float32), gpuarray.zeros(1024, np.float32)
    with pytest.raises(drv.LaunchError) as caught, settings.changed(racecheck=True):
        SourceModule(source).get_function("write_past")(a, b, np.int32(1024), block=(256, 1, 1),
                                                        grid=(4, 1))
    assert caught.value.line == f"oob.cu:{line_of(GLOBAL_FAULTS.lstrip(chr(10)), 'the write past')}"


def test_a_division_by_zero_names_its_line():
    mod = SourceModule('#line 1 "div.cu"\n__global__ void divide(int *out, int k) {\n'
                       '    out[threadIdx.x] = 7 / (k - (int)threadIdx.x);\n}\n')
    with pytest.raises(drv.LaunchError) as caught:
        mod.get_function("divide")(gpuarray.zeros(4, np.int32), np.int32(2), block=(4, 1, 1))
    err = caught.value
    assert (err.kind, err.thread, err.line) == ("division by zero", (2, 0, 0), "div.cu:2")
    assert str(err).endswith("thread (2, 0, 0) at div.cu:2")


@pytest.mark.skipif(platform.machine() != "x86_64" or sys.platform != "linux",
                    reason="the watch run's pages are made read-only on x86-64 Linux only")
@pytest.mark.parametrize("kernel, n, marker, thread", [
    ("one_too_many", 1001, "the write one past", (233, 0, 0)),
    ("shift_left", 1000, "the write before", (0, 0, 0))])
def test_a_write_into_the_unguarded_bytes_by_an_array_names_its_line(kernel, n, marker, thread):
    # 4004 and 4000 bytes: the first bytes past the end, and those before the start, lie on the
    # array's own pages, where a write does not fault; the second run, which finds the thread,
    # makes them fault, the array's own elements on those pages written on the way
    source = '#line 1 "slack.cu"\n' + SLACK_WRITES.lstrip("\n")
    a, b = gpuarray.zeros(n, np.float32), gpuarray.zeros(n, np.float32)
    with pytest.raises(drv.LaunchError) as caught:
        SourceModule(source).get_function(kernel)(a, b, np.int32(n), block=(256, 1, 1),
                                                  grid=(4, 1))
    err = caught.value
    assert (err.kind, err.is_write, err.thread) == ("out of bounds", True, thread)
    assert err.line == f"slack.cu:{line_of(SLACK_WRITES.lstrip(chr(10)), marker)}"
