"""Pitched memory (helpers/sim/machine/pitched.py): mem_alloc_pitch, Memcpy2D and Memcpy3D with
offsets and pitches, 2-D fills and fills queued on a stream. These run on whichever backend
helpers.backend chose, so on a GPU they hold PyCUDA itself to the same results (the pitch an
H200 gives included); the checks of a wrong pitch or offset run on the simulator."""

import numpy as np
import pytest

from helpers.backend import BACKEND, drv

ROWS, COLS = 6, 7  # a float32 matrix whose rows (28 bytes) are padded to the pitch


def test_rows_are_padded_to_the_pitch_a_gpu_gives():
    for width, height, want in ((28, ROWS, 512), (512, 2, 512), (513, 3, 1024)):
        allocation, pitch = drv.mem_alloc_pitch(width, height, 4)
        assert pitch == want, (width, pitch)
        allocation.free()
    with pytest.raises(drv.LogicError):  # CUDA_ERROR_INVALID_VALUE, a LogicError in PyCUDA
        drv.mem_alloc_pitch(28, ROWS, 3)


def _to_device(a, pitch, allocation):
    copy = drv.Memcpy2D()
    copy.set_src_host(a)
    copy.set_dst_device(allocation)
    copy.src_pitch, copy.dst_pitch = a.strides[0], pitch
    copy.width_in_bytes, copy.height = a.strides[0], a.shape[0]
    copy(False)  # unaligned: a host row of 28 bytes is no pitch cuMemAllocPitch would give


def _from_device(allocation, pitch, shape, dtype=np.float32):
    out = np.zeros(shape, dtype)
    copy = drv.Memcpy2D()
    copy.set_src_device(allocation)
    copy.set_dst_host(out)
    copy.src_pitch, copy.dst_pitch = pitch, out.strides[0]
    copy.width_in_bytes, copy.height = out.strides[0], shape[0]
    copy(False)
    return out


def test_a_2d_copy_moves_a_block_between_offsets_now_and_on_a_stream():
    a = np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS)
    allocation, pitch = drv.mem_alloc_pitch(4 * COLS, ROWS, 4)
    drv.memset_d8(allocation, 0, pitch * ROWS)
    copy = drv.Memcpy2D()  # rows 1..3, columns 1..3 of a, to rows 2..4, columns 2..4
    copy.set_src_host(a)
    copy.set_dst_device(allocation)
    copy.src_x_in_bytes, copy.src_y, copy.src_pitch = 4, 1, a.strides[0]
    copy.dst_x_in_bytes, copy.dst_y, copy.dst_pitch = 8, 2, pitch
    copy.width_in_bytes, copy.height = 12, 3
    copy(False)
    want = np.zeros_like(a)
    want[2:5, 2:5] = a[1:4, 1:4]
    assert np.array_equal(_from_device(allocation, pitch, a.shape), want)
    stream = drv.Stream()
    copy.dst_y = 0
    copy(stream)
    stream.synchronize()
    want[0:3, 2:5] = a[1:4, 1:4]
    assert np.array_equal(_from_device(allocation, pitch, a.shape), want)


def test_a_3d_copy_moves_every_layer():
    a = np.arange(3 * ROWS * COLS, dtype=np.float32).reshape(3, ROWS, COLS)
    allocation, pitch = drv.mem_alloc_pitch(4 * COLS, 3 * ROWS, 4)
    copy = drv.Memcpy3D()
    copy.set_src_host(a)
    copy.set_dst_device(allocation)
    copy.src_pitch, copy.src_height = a.strides[1], ROWS
    copy.dst_pitch, copy.dst_height = pitch, ROWS
    copy.width_in_bytes, copy.height, copy.depth = a.strides[1], ROWS, 3
    copy()
    got = _from_device(allocation, pitch, (3 * ROWS, COLS)).reshape(a.shape)
    assert np.array_equal(got, a)


def test_2d_fills_and_fills_on_a_stream():
    allocation, pitch = drv.mem_alloc_pitch(4 * COLS, ROWS, 4)
    drv.memset_d8(allocation, 0, pitch * ROWS)
    drv.memset_d2d32(allocation, pitch, int(np.float32(2.5).view(np.uint32)), 5, 3)
    want = np.zeros((ROWS, COLS), np.float32)
    want[:3, :5] = 2.5
    assert np.array_equal(_from_device(allocation, pitch, want.shape), want)
    stream = drv.Stream()
    drv.memset_d2d8_async(allocation, pitch, 0, 4 * COLS, ROWS, stream)
    drv.memset_d32_async(int(allocation) + pitch, 7, COLS, stream)
    stream.synchronize()
    got = _from_device(allocation, pitch, want.shape, np.int32)
    assert (got[1] == 7).all() and (np.delete(got, 1, axis=0) == 0).all()


def test_a_row_wider_than_its_pitch_is_refused():
    allocation, pitch = drv.mem_alloc_pitch(4 * COLS, ROWS, 4)
    with pytest.raises(drv.LogicError):
        drv.memset_d2d8(allocation, pitch, 1, pitch + 1, 2)
    copy = drv.Memcpy2D()
    copy.set_src_device(allocation)
    copy.set_dst_device(allocation)
    copy.src_pitch = copy.dst_pitch = pitch
    copy.width_in_bytes, copy.height = pitch + 4, 2
    with pytest.raises(drv.LogicError):
        copy(True)


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU a copy past a host buffer writes "
                    "over the process's memory: the simulator checks it")
def test_a_copy_past_its_buffer_or_allocation_says_which():
    allocation, pitch = drv.mem_alloc_pitch(4 * COLS, ROWS, 4)
    small = np.zeros((2, COLS), np.float32)
    copy = drv.Memcpy2D()
    copy.set_src_device(allocation)
    copy.set_dst_host(small)
    copy.src_pitch, copy.dst_pitch = pitch, small.strides[0]
    copy.width_in_bytes, copy.height = small.strides[0], ROWS
    with pytest.raises(ValueError, match="destination host buffer holds 56 bytes.*reaches byte "
                                         "168.*pitch, the offsets and the height"):
        copy(False)
    copy.set_dst_device(allocation)
    copy.dst_pitch, copy.dst_y = pitch, 1
    with pytest.raises(drv.LogicError, match="do not fit inside one allocation"):
        copy(True)
