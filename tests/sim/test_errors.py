"""The simulator's exceptions (helpers/sim/errors.py): PyCUDA's classes with their bases, the
facts a launch error carries and the words made from them. The errors are made here as the engine
makes them, with no compile; but for the last test, a launch past a kernel's __launch_bounds__,
which runs on whichever backend helpers.backend chose: PyCUDA's LaunchError and
MAX_THREADS_PER_BLOCK on a GPU, the simulator's (with its fields) here."""

import builtins

import numpy as np
import pytest

from helpers import backend
from helpers.sim import driver as drv, errors


def test_pycudas_classes_keep_their_bases():
    assert issubclass(errors.LogicError, errors.Error) and issubclass(errors.LaunchError, errors.Error)
    assert issubclass(errors.InvalidPointerError, errors.LogicError)
    assert issubclass(errors.MemoryError, builtins.MemoryError)  # `except MemoryError:` catches it
    assert issubclass(errors.RaceError, errors.LaunchError)
    assert issubclass(errors.TimeLimitError, errors.LaunchError)
    assert issubclass(errors.HostFunctionError, errors.CompileError)
    assert issubclass(errors.NotSimulatedError, errors.CompileError)
    assert drv.LaunchError is errors.LaunchError and drv.CompileError is errors.CompileError


def test_an_out_of_bounds_access_carries_its_allocation_offset_and_thread():
    e = errors.OutOfBoundsError("illegal address", allocation=(0x1000, 64), offset=64,
                                is_write=True, kind="out of bounds", kernel="k", block=(1, 0, 0),
                                thread=(31, 0, 0), array="out", element=16)
    assert (e.kind, e.kernel, e.block, e.thread, e.array, e.element) == (
        "out of bounds", "k", (1, 0, 0), (31, 0, 0), "out", 16)
    assert e.is_write and e.relative == "1 byte past the end of a 64-byte allocation"
    unplaced = errors.OutOfBoundsError("illegal address", kind="array bounds", array="s")
    assert unplaced.relative == "s" and unplaced.line is None


def test_the_bounds_check_places_an_access_by_element_where_it_knows_the_array():
    e = errors.OutOfBoundsError("", space="shared", array="tile", element=16, length=16,
                                offset=64, size=4, kind="out of bounds")
    assert (e.space, e.size, e.allocation) == ("shared", 4, None)
    assert e.relative == "tile[16], 1 element past the end of its 16"
    wide = errors.OutOfBoundsError("", allocation=(0x1000, 60), offset=56, size=8)
    assert wide.relative == "at offset 56 of a 60-byte allocation, 8 bytes wide: past its end"


def _race(count=1, second_line="k.cu:7", array="s", element=3):
    first = errors.Access((0, 0, 0), (2, 0, 0), "k.cu:5", "writes it")
    second = errors.Access((1, 0, 0), (2, 0, 0), second_line, "reads it")
    return errors.RaceError("race", first=first, second=second, space="shared",
                            hazard="read-after-write", count=count, kernel="k", array=array,
                            element=element, address=0x40, within_warps=True)


def test_a_race_carries_both_accesses_and_is_told_from_them():
    e = _race(count=3)
    assert (e.kind, e.line, e.hazard, e.space) == ("race", "k.cu:7", "read-after-write", "shared")
    assert e.second.who == "thread (1, 0, 0) of block (2, 0, 0)" and not e.same_line
    assert (e.first.writes, e.first.reads, e.second.writes, e.second.reads) == (True, False, False, True)
    atomic = errors.Access((0, 0, 0), (0, 0, 0), "k.cu:5", "updates it atomically", atomic=True)
    assert not atomic.writes and not atomic.reads
    assert e.place == "s[3] (shared memory)"
    assert e.summary == (
        "kernel 'k' has a data race on s[3] (shared memory): thread (0, 0, 0) of block (2, 0, 0) "
        "writes it at k.cu:5, and thread (1, 0, 0) of block (2, 0, 0) reads it at k.cu:7, with no "
        "barrier between the two (a read-after-write hazard) (2 more hazards in this launch)")
    alone = _race(second_line="k.cu:5", array=None, element=None)
    assert alone.same_line and alone.place == "shared address 0x40"
    assert alone.summary.endswith("(a read-after-write hazard)")


def test_what_a_block_had_written_of_a_shared_array_is_told_from_the_indices():
    def read(written, length=32):
        return errors.UninitialisedReadError("", space="shared", size=4, count=1, array="w",
                                             element=8, length=length, written=written)
    assert read(()).written_words == "none of its 32 elements"
    assert read((), length=None).written_words == "none of its elements"
    assert read(tuple(range(8))).written_words == "only w[0] to w[7] of its 32 elements"
    assert read((0, 2, 4, 6, 7, 9)).written_words == (
        "only w[0], w[2], w[4] and 2 more runs of its 32 elements")
    assert read((0, 2, 4, 6)).written_words == "only w[0], w[2], w[4] and 1 more run of its 32 elements"


def test_a_time_limit_is_a_launch_error_of_its_own():
    e = errors.TimeLimitError("stopped", seconds=20, kernel="spin")
    assert isinstance(e, errors.LaunchError) and str(e) == "stopped"   # what checkers catch
    assert (e.kind, e.seconds, e.kernel) == ("time limit", 20, "spin")


def test_a_compile_error_shows_its_command_and_the_compilers_output():
    e = errors.CompileError("compile failed", ["g++", "-O2", "k.cu"], stderr="k.cu:1: error")
    assert str(e) == "compile failed\n[command: g++ -O2 k.cu]\n[stderr:\nk.cu:1: error]"
    host = errors.HostFunctionError("host call", "printf_s", "k.cu", 4)
    assert (host.function, host.file, host.line, host.command_line) == ("printf_s", "k.cu", 4, None)


def test_a_launch_past_the_kernels_launch_bounds_is_refused_and_its_attribute_is_the_bound():
    """__launch_bounds__(N) makes the kernel's MAX_THREADS_PER_BLOCK N, and a launch of more
    threads a block fails with a LaunchError ("too many resources requested for launch"), after
    which the context still works. The simulator once compiled the bound away and ran it."""
    mod = backend.SourceModule("#define HALF 64\n"
                       "__global__ void __launch_bounds__(2 * HALF, 2) bounded(float *x) {\n"
                       "    x[threadIdx.x + blockDim.x * threadIdx.y] = 1.0f;\n}\n"
                       "__global__ void free_(float *x) { x[threadIdx.x] = 2.0f; }\n")
    bounded, free_ = mod.get_function("bounded"), mod.get_function("free_")
    attr = backend.drv.function_attribute.MAX_THREADS_PER_BLOCK
    assert bounded.get_attribute(attr) == bounded.max_threads_per_block == 128
    assert free_.get_attribute(attr) == 1024
    x = backend.gpuarray.zeros(1024, np.float32)
    for block in ((256, 1, 1), (16, 16, 1)):
        with pytest.raises(backend.drv.LaunchError) as caught:
            bounded(x, block=block)
        if backend.BACKEND == "simulator":   # the simulator's error carries the facts
            err = caught.value
            assert (err.kind, err.kernel, err.max_threads, err.threads, err.block_dim) == \
                ("launch bounds", "bounded", 128, 256, block)
    bounded(x, block=(128, 1, 1))
    free_(x[128:], block=(896, 1, 1))
    assert x.get().tolist() == [1.0] * 128 + [2.0] * 896
