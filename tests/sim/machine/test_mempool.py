"""PyCUDA's memory pools (helpers/sim/machine/mempool.py): freed blocks are kept in bins by size
and handed out again, so that a loop allocating the same sizes allocates once."""

import numpy as np

from helpers.sim import gpuarray, tools


def test_a_freed_block_is_handed_out_again_for_a_size_of_its_bin():
    pool = tools.DeviceMemoryPool()
    for size in (1, 100, 4096, 10**6):
        assert size <= pool.alloc_size(pool.bin_number(size)) <= size * 1.25 + 1
    first = pool.allocate(1000)
    address = int(first)
    first.free()
    assert (pool.active_blocks, pool.held_blocks) == (0, 1)
    again = pool.allocate(1000)
    assert int(again) == address and (pool.active_blocks, pool.held_blocks) == (1, 0)
    again.free()
    pool.free_held()
    assert pool.held_blocks == 0


def test_a_pool_is_a_gpuarray_allocator_and_stops_holding_when_asked():
    pool = tools.DeviceMemoryPool()
    a = gpuarray.to_gpu(np.arange(256, dtype=np.float32), allocator=pool.allocate)
    assert np.array_equal((a * 2).get(), 2 * np.arange(256, dtype=np.float32))
    pool.stop_holding()
    del a
    assert pool.held_blocks == 0
    b = tools.PageLockedMemoryPool().allocate((3, 4), np.float64)
    assert b.shape == (3, 4) and b.dtype == np.float64
