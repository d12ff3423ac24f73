"""The simulator catches every overrun as compute-sanitizer's memcheck does on a GPU: the first
byte past the end of an array, the byte before its start, past the launch's shared= bytes, and
an address given to a kernel that is no device memory, each named with the allocation, the
kernel, the block and the thread (helpers/sim/machine/memory.py says how)."""

import threading

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.errors import InvalidPointerError
from helpers.sim.machine import memory
from helpers.sim.compiler import SourceModule

KERNELS = r"""
__global__ void one_too_many(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 1.0f;                       // <= : one element too many
}
__global__ void shift_left(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i - 1] = in[i];                   // i = 0 writes before the start
}
__global__ void read_before(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i - 1];                   // i = 0 reads before the start
}
__global__ void read_at(const float *in, float *out, int k) { out[0] = in[k]; }
__global__ void shared_bytes(char *out, int k) {
    extern __shared__ char buf[];
    buf[(int)threadIdx.x + k] = 1;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x];
}
__global__ void fill_bytes(char *out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = 7;
}
__global__ void load16(const uint4 *in, uint4 *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void maybe(float *p, int use) { if (use) p[0] = 1.0f; }
__global__ void chatty(float *out, int n) {
    int i = threadIdx.x;
    printf("thread %d\n", i);
    if (i <= n) out[i] = 2.0f;
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule('#line 1 "overruns.cu"\n' + KERNELS)


def launch_error(fn, *args, **kw):
    with pytest.raises(drv.LaunchError) as err:
        fn(*args, **kw)
    return err.value


@pytest.mark.parametrize("n", [1001, 1002, 1003, 1004, 1024])
def test_the_first_element_past_the_end_is_caught_and_its_thread_named(mod, n):
    """n = 1001..1003 floats leave 4 to 12 bytes between the array and the next page."""
    out = gpuarray.zeros(n, np.float32)
    e = launch_error(mod.get_function("one_too_many"), out, np.int32(n), block=(256, 1, 1),
                     grid=(n // 256 + 1, 1))
    assert (e.kind, e.block, e.thread, e.is_write) == (
        "out of bounds", (n // 256, 0, 0), (n % 256, 0, 0), True), e
    assert (e.address, e.allocation, e.offset) == (int(out.gpudata) + 4 * n,
                                                   (int(out.gpudata), 4 * n), 4 * n), e


def test_an_overrun_carries_its_facts(mod):
    """Checkers read the fields, not the message: the thread, the allocation, the offset."""
    n = 1001
    out = gpuarray.zeros(n, np.float32)
    with pytest.raises(drv.LaunchError) as err:
        mod.get_function("one_too_many")(out, np.int32(n), block=(256, 1, 1), grid=(4, 1))
    e = err.value
    assert (e.kind, e.kernel, e.block, e.thread) == ("out of bounds", "one_too_many", (3, 0, 0),
                                                     (233, 0, 0))
    assert e.allocation == (int(out.gpudata), 4 * n) and e.offset == 4 * n and e.is_write
    assert e.relative == f"1 byte past the end of a {4 * n}-byte allocation"


@pytest.mark.parametrize("n", [1000, 1001, 1024])
def test_the_element_before_the_start_is_caught_and_named(mod, n):
    x, out = gpuarray.zeros(n, np.float32), gpuarray.zeros(n, np.float32)
    e = launch_error(mod.get_function("shift_left"), x, out, np.int32(n), block=(128, 1, 1),
                     grid=(-(-n // 128), 1))
    assert (e.block, e.thread, e.is_write) == ((0, 0, 0), (0, 0, 0), True), e
    assert (e.allocation, e.offset) == ((int(out.gpudata), 4 * n), -4), e


def test_a_read_before_the_start_of_a_whole_page_faults_and_names_that_array(mod):
    before = gpuarray.zeros(3000, np.float32)  # placed next to x: the fault is not blamed on it
    x, out = gpuarray.zeros(1024, np.float32), gpuarray.zeros(1024, np.float32)
    e = launch_error(mod.get_function("read_before"), x, out, np.int32(1024), block=(128, 1, 1),
                     grid=(8, 1))
    assert (e.thread, e.is_write, e.allocation, e.offset) == (
        (0, 0, 0), False, (int(x.gpudata), 4096), -4), e
    del before


def test_a_fault_just_outside_an_array_names_that_array(mod):
    a, b = drv.mem_alloc(4096), drv.mem_alloc(4096)
    out = gpuarray.zeros(1, np.float32)
    e = launch_error(mod.get_function("read_at"), a, out, np.int32(1024 + 8), block=(1, 1, 1))
    assert (e.allocation, e.offset) == ((int(a), 4096), 4 * (1024 + 8)), e  # 33 bytes past its end
    e = launch_error(mod.get_function("read_at"), b, out, np.int32(-2), block=(1, 1, 1))
    assert (e.allocation, e.offset) == ((int(b), 4096), -8), e


def _touching_pair(size, tries=16):
    """Two live allocations of ``size`` bytes whose mappings touch, as (below, above, both
    arrays). Arrays under 2 MiB take the lowest free range of the device's address space that
    fits them (arena.py), so the next lands against the last unless that range was too small
    for two: freed arrays leave gaps, which a pair can fall into apart. Each miss uses one up."""
    arrays = [drv.mem_alloc(size)]
    for _ in range(tries):
        arrays.append(drv.mem_alloc(size))
        first, second = (memory.find(int(a)) for a in arrays[-2:])
        for below, above in ((first, second), (second, first)):
            if below.base + below.length == above.base:
                return below, above, arrays[-2:]
    pytest.fail(f"no two of {tries + 1} arrays of {size:,} bytes were mapped next to each other")


def test_an_address_between_two_arrays_is_named_after_the_nearer_one():
    """As memcheck says it: the guard page below one array may lie nearer the end of the other.
    Whole pages and 100 bytes end 12 bytes below a guard page and start most of a page above one:
    with 4 KiB pages, the first 1,986 bytes of the guard page below `above` are nearer the end of
    `below` (4,108 bytes below that page) than the start of `above` (8,080 bytes above it)."""
    size = (1 << 20) + 100
    below, above, alive = _touching_pair(size)  # alive: the two arrays, freed after the checks
    for address, nearer in [(below.end + 4, below),                 # its own guard page
                            (above.base + 100, below),              # the guard page of `above`
                            (above.base + memory.PAGE - 4, above),
                            (above.address - 4, above)]:            # its own slack
        assert memory.fault_facts(address) == {
            "kind": "out of bounds", "allocation": (nearer.address, size),
            "offset": address - nearer.address}, (hex(address), hex(below.base), hex(above.base))


def test_a_read_just_past_an_odd_sized_end_reads_nan_not_zero(mod):
    """The trade-off memory.py describes: reads of the unguarded bytes are not caught, but they
    read NaN, so a result built on them is visibly wrong."""
    x, out = gpuarray.to_gpu(np.ones(1001, np.float32)), gpuarray.zeros(1, np.float32)
    mod.get_function("read_at")(x, out, np.int32(1001), block=(1, 1, 1))
    assert np.isnan(out.get()[0])


@pytest.mark.parametrize("shared", [10, 13, 16, 100])
def test_dynamic_shared_memory_ends_at_the_launchs_shared_bytes(mod, shared):
    out = gpuarray.zeros(128, np.int8)
    f = mod.get_function("shared_bytes")
    f(out, np.int32(0), block=(shared, 1, 1), shared=shared)  # every byte once: fine
    for k, thread, offset in [(1, shared - 1, shared),   # the first byte past the end
                              (-1, 0, -1)]:              # the byte before the start
        e = launch_error(f, out, np.int32(k), block=(shared, 1, 1), shared=shared)
        assert (e.kind, e.space, e.array, e.offset, e.thread, e.is_write) == (
            "out of bounds", "shared", "extern __shared__ array", offset, (thread, 0, 0), True), e


def test_no_false_alarm_for_any_size(mod):
    f = mod.get_function("fill_bytes")
    for n in range(1, 70):
        out = gpuarray.zeros(n, np.int8)
        f(out, np.int32(n), block=(128, 1, 1))
        assert (out.get() == 7).all()


def test_arrays_start_aligned_for_vector_loads(mod):
    for nbytes in (1, 12, 16, 100, 4000, 4004, 4096, 1 << 20):
        assert int(drv.mem_alloc(nbytes)) % 16 == 0, nbytes
    assert int(drv.mem_alloc(4096)) % 256 == 0
    x = gpuarray.to_gpu(np.arange(64, dtype=np.uint32))
    out = gpuarray.zeros(64, np.uint32)
    mod.get_function("load16")(x, out, block=(16, 1, 1))
    assert np.array_equal(out.get(), np.arange(64))


def test_a_raw_address_given_to_a_kernel_must_be_device_memory(mod):
    f = mod.get_function("maybe")
    d = drv.mem_alloc(64)
    f(np.intp(0), np.int32(0), block=(1, 1, 1))                      # NULL, not used: fine
    f(np.intp(int(d) + 60), np.int32(1), block=(1, 1, 1))             # inside: fine
    f(np.intp(int(d) + 64), np.int32(0), block=(1, 1, 1))             # one past the end: fine
    host = np.zeros(16, np.float32)
    with pytest.raises(InvalidPointerError) as wild:
        f(np.intp(host.ctypes.data), np.int32(1), block=(1, 1, 1))
    assert (wild.value.kind, wild.value.parameter, wild.value.kernel) == ("wild pointer", 0, "maybe")
    with pytest.raises(InvalidPointerError) as before:
        f(np.intp(int(d) - 4), np.int32(1), block=(1, 1, 1))
    assert (before.value.kind, before.value.allocation, before.value.offset) == (
        "out of bounds", (int(d), 64), -4)
    assert (host == 0).all()


def test_looking_for_the_culprit_does_not_print_twice(mod, capfd):
    out = gpuarray.zeros(5, np.float32)
    capfd.readouterr()
    launch_error(mod.get_function("chatty"), out, np.int32(5), block=(8, 1, 1))
    lines = capfd.readouterr().out.splitlines()
    assert sorted(lines) == sorted(f"thread {i}" for i in range(8)), lines


def test_the_canaries_are_put_back_after_a_report(mod):
    out = gpuarray.zeros(1001, np.float32)
    launch_error(mod.get_function("one_too_many"), out, np.int32(1001), block=(256, 1, 1),
                 grid=(4, 1))
    block = memory.find(int(out.gpudata))
    assert memory.damaged_slacks(block) == []
    mod.get_function("one_too_many")(out, np.int32(1000), block=(256, 1, 1), grid=(4, 1))


def test_freeing_memory_from_a_garbage_collection_inside_the_allocator_does_not_deadlock():
    from helpers.sim.machine import memory

    class FreedByCollector:
        def __del__(self):
            memory.release(memory.allocate(64))

    def churn():
        with memory._lock:  # a collection can run __del__ while this thread holds the lock
            FreedByCollector()

    worker = threading.Thread(target=churn, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the allocator deadlocked on its own lock"


def test_memory_freed_while_a_use_after_free_is_looked_up_does_not_break_the_lookup():
    # A finalizer that frees memory may run at any allocation, so in the middle of the search
    # of the freed allocations: the search sees the quarantine as it was when it started.
    # The quarantine starts empty: full (QUARANTINE_BLOCKS, after the tests before this one in
    # the process), the releases below would give back its oldest block, the planted one.
    memory._empty_quarantine()
    freed_meanwhile = memory.allocate(64)

    class FreesOnLookup(memory.Block):
        @property
        def base(self):
            if freed_meanwhile.freed_at is None:
                memory.release(freed_meanwhile, freed_at="the finalizer")
            return 0

    stale = memory.allocate(64)
    memory.release(stale, freed_at="the test")
    searched = FreesOnLookup.__new__(FreesOnLookup)
    searched.length = 1
    memory._quarantine.appendleft(searched)
    try:
        assert memory._freed(stale.address) is stale
    finally:
        memory._quarantine.remove(searched)


def test_an_array_the_collector_frees_in_the_middle_of_a_lookup_waits_until_it_ends():
    # Python 3.12 may collect garbage after almost any call: on the H200 machine's Python a
    # collection ran between find()'s binary search and its use of the index, freed an array,
    # and the lookup failed with an IndexError. Here the search's own comparisons collect.
    import gc

    class CollectsWhenCompared(int):
        def __lt__(self, other):
            gc.collect()
            return int(self) < other

    arrays = [drv.mem_alloc(64) for _ in range(4)]
    wanted, doomed = int(arrays[-1]), int(arrays[0])
    garbage = [arrays.pop(0)]
    garbage.append(garbage)  # a cycle: only a collection frees it
    del garbage
    gc.disable()
    try:
        block = memory.find(CollectsWhenCompared(wanted))
    finally:
        gc.enable()
    assert block is not None and block.address == wanted
    assert memory.find(doomed) is None  # freed, once the lookup was over
