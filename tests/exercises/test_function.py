"""What every function exercise's check shares (``helpers.exercises.function``): device memory
allocated while it runs starts as zeros, on a GPU as on the simulator, so that a right answer left
at the same address by an earlier run cannot hide an output the learner's function never wrote
(gray_split's kernel given one image's rows passed on an H100 after the right function had run)."""

import numpy as np
import pytest

from helpers.backend import drv, gpuarray
from helpers.exercises.function import allocations_zeroed

NBYTES = 1 << 20


def left_over():
    """An allocation filled with 0xAB and freed, as a previous run leaves its memory."""
    old = gpuarray.empty(NBYTES, np.uint8)
    old.fill(0xAB)
    old.gpudata.free()


@pytest.mark.parametrize("make", [
    lambda: gpuarray.empty(NBYTES, np.uint8),
    lambda: gpuarray.GPUArray((NBYTES,), np.uint8),
    lambda: gpuarray.GPUArray(NBYTES, np.uint8, gpuarray.GPUArray(4, np.uint8).allocator),
], ids=["empty", "GPUArray", "allocator_given"])
def test_a_new_array_starts_as_zeros(make):
    left_over()
    with allocations_zeroed():
        fresh = make()
    assert not fresh.get().any()


def test_memory_from_mem_alloc_starts_as_zeros():
    left_over()
    with allocations_zeroed():
        memory = drv.mem_alloc(NBYTES)
    got = np.ones(NBYTES, np.uint8)
    drv.memcpy_dtoh(got, memory)
    assert not got.any()


def test_a_view_keeps_what_its_base_holds_and_the_driver_is_restored():
    base = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
    alloc, init = drv.mem_alloc, gpuarray.GPUArray.__init__
    with allocations_zeroed():
        view = base[2:6]
        copied = gpuarray.to_gpu(np.full(4, 7, np.float32))
    assert list(view.get()) == [2, 3, 4, 5] and list(copied.get()) == [7] * 4
    assert (drv.mem_alloc, gpuarray.GPUArray.__init__) == (alloc, init)


def frame_walker(h, d, stream):   # a notebook's function that reaches the checker's globals
    walker = (k for k in range(1))
    return walker.gi_frame.f_back.f_globals


def test_a_notebook_s_function_is_screened_as_the_grader_screens_it(capsys):
    from helpers.exercises.copy_bandwidth import check_copy_bandwidth

    verdict = check_copy_bandwidth(frame_walker)
    assert not verdict.passed, verdict
    line = frame_walker.__code__.co_firstlineno + 2
    assert verdict.problem.startswith(f"line {line} of test_function.py reads .f_globals, which "
                                      "walks Python's frames"), verdict


def test_a_notebook_s_whole_cell_is_screened_as_the_grader_screens_it(capsys):
    """The grader screens the cell that defines the function (read from the notebook); the
    notebook's own check screens the same cell, as IPython named it, not the function alone."""
    import linecache

    from helpers.exercises.copy_bandwidth import check_copy_bandwidth

    cell, name = "import os\n\ndef my_copy_gbs(h, d, stream):\n    return 1.0\n", \
        "/tmp/ipykernel_4242/1234567.py"
    linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
    namespace = {}
    exec(compile(cell, name, "exec"), namespace)  # noqa: S102 - a notebook's cell, as IPython runs it
    verdict = check_copy_bandwidth(namespace["my_copy_gbs"])
    assert not verdict.passed and verdict.problem.startswith("line 1 of your cell imports os"), \
        verdict
