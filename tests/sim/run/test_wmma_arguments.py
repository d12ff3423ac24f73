"""A warp-wide wmma load (include/mma.h) given a pointer or a leading dimension that differs
between lanes stops the launch with a WarpMatrixError whose fields say which lanes passed what
(on a GPU, undefined behaviour: the warp must pass one pointer and one leading dimension)."""

import numpy as np
import pytest

from helpers.sim import driver as drv
from helpers.sim.compiler import SourceModule

KERNEL = r"""
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void load(const half *A, float *C, int step, int wide) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, A + step * threadIdx.x, 16 + (threadIdx.x == 3 ? wide : 0));
    wmma::load_matrix_sync(fb, A, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major);
}
"""


def _launch(step, wide):
    module = SourceModule(KERNEL, no_extern_c=True)
    a = drv.to_device(np.ones(1024, np.float16))
    out = np.zeros(256, np.float32)
    module.get_function("load")(a, drv.Out(out), np.int32(step), np.int32(wide), block=(32, 1, 1))
    return a, out


def test_a_pointer_of_each_lane_names_both_lanes_pointers():
    with pytest.raises(drv.LaunchError) as info:
        _launch(1, 0)
    err = info.value
    assert err.kind == "warp matrix" and err.rule == "arguments differ"
    assert err.lanes == (0, 1) and err.pointers[1] - err.pointers[0] == 2
    assert err.element_size == 2 and err.ldms == (16, 16)
    assert err.offsets == (0, 2) and err.allocations[0] == err.allocations[1]
    assert err.thread == (1, 0, 0) and err.line == "kernel.cu:9"


def test_a_leading_dimension_of_one_lane_names_it():
    with pytest.raises(drv.LaunchError) as info:
        _launch(0, 16)
    err = info.value
    assert err.rule == "arguments differ" and err.lanes == (0, 3) and err.ldms == (16, 32)
    assert err.pointers[0] == err.pointers[1]


def test_one_pointer_for_the_warp_runs():
    _, out = _launch(0, 0)
    assert np.all(out == 16)
