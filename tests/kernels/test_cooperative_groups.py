"""Cooperative groups (cooperative_groups.h) at block and warp scope, against NumPy, on whichever
backend runs: a block sum with cg::reduce over tiles of 32, a tile of 16 summed with shfl_down,
scans, votes, a coalesced group in a divergent branch, memcpy_async into shared memory.

The kernels are written for nvcc as a PyCUDA user writes them (C++ headers: no_extern_c=True, and
extern "C" on each kernel); nvcc compiles them here where the toolkit is installed. Float results
are compared bit for bit with NumPy doing the same additions in the same order (CUDA's header's
order, which the simulator's header follows). The last tests are the simulator's own: its race
check sees through the groups, and what it refuses it names.
"""

import numpy as np
import pytest

from helpers.backend import SourceModule, gpuarray
from helpers.sim import driver as sim_drv, gpuarray as sim_gpuarray
from helpers.sim.compile import not_simulated
from helpers.sim.compiler import SourceModule as SimSourceModule
from helpers.sim.errors import ExternCError, NotSimulatedError
from helpers.sim.microscope.trace import trace
from helpers.sim.settings import settings
from kernel_sources import find_nvcc, nvcc_accepted, nvcc_verdict

RNG = np.random.default_rng(27)

KERNELS = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

// Each warp sums its 32 values with cg::reduce; the first warp sums the warps' sums.
extern "C" __global__ void block_sum(const float *x, float *out, int n) {
    __shared__ float warp_sums[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned int i = block.group_index().x * block.size() + block.thread_rank();
    float sum = cg::reduce(warp, i < n ? x[i] : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = sum;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        float w = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;
        w = cg::reduce(warp, w, cg::plus<float>());
        if (warp.thread_rank() == 0) out[block.group_index().x] = w;
    }
}

// Tiles of 16 summed by hand: rank 0 of each tile writes its sum.
extern "C" __global__ void tile16_sum(const float *x, float *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    float v = x[block.thread_rank()];
    for (int delta = tile.size() / 2; delta > 0; delta /= 2) v += tile.shfl_down(v, delta);
    if (tile.thread_rank() == 0) out[tile.meta_group_rank()] = v;
}

// Scans in tiles of 8 and 32: [inclusive sum, exclusive sum, exclusive max] of ints, and the
// inclusive sum of floats.
extern "C" __global__ void scans(const int *x, const float *f, int *out, float *fout) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned int t = block.thread_rank();
    out[4 * t + 0] = cg::inclusive_scan(tile, x[t]);
    out[4 * t + 1] = cg::exclusive_scan(tile, x[t]);
    out[4 * t + 2] = cg::exclusive_scan(tile, x[t], cg::greater<int>());
    out[4 * t + 3] = cg::inclusive_scan(warp, x[t]);
    fout[t] = cg::inclusive_scan(warp, f[t], cg::plus<float>());
}

// Votes and the bitwise reductions, in tiles of 16.
extern "C" __global__ void votes(const int *x, unsigned int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    unsigned int t = block.thread_rank();
    int v = x[t];
    out[6 * t + 0] = tile.ballot(v & 1);
    out[6 * t + 1] = tile.any(v > 90);
    out[6 * t + 2] = tile.all(v >= 10);
    out[6 * t + 3] = cg::reduce(tile, (unsigned int)v, cg::bit_or<unsigned int>());
    out[6 * t + 4] = cg::reduce(tile, v, cg::less<int>());
    out[6 * t + 5] = tile.match_any(v % 4);
}

// The lanes with an odd value take the branch; there, they are the coalesced group.
extern "C" __global__ void odd_lanes(const int *x, int *out) {
    cg::thread_block block = cg::this_thread_block();
    unsigned int t = block.thread_rank();
    int v = x[t];
    out[4 * t + 0] = out[4 * t + 1] = out[4 * t + 2] = out[4 * t + 3] = -1;
    if (v & 1) {
        cg::coalesced_group odd = cg::coalesced_threads();
        out[4 * t + 0] = odd.size();
        out[4 * t + 1] = odd.thread_rank();
        out[4 * t + 2] = cg::reduce(odd, v, cg::plus<int>());
        out[4 * t + 3] = odd.shfl(v, 0);
    }
}

// Each block copies its n values into shared memory, waits, and reads its neighbour's.
extern "C" __global__ void copy_in(const float *x, float *out, int n, int waited) {
    extern __shared__ float tile[];
    cg::thread_block block = cg::this_thread_block();
    const float *mine = x + block.group_index().x * n;
    cg::memcpy_async(block, tile, mine, sizeof(float) * n);
    if (waited) cg::wait(block);
    for (unsigned int i = block.thread_rank(); i < n; i += block.size())
        out[block.group_index().x * n + i] = 2.0f * tile[(i + 1) % n];
}

// Dynamic tiles: the rank and size of each thread's tile of 8, and its tile's sum of ranks.
extern "C" __global__ void dynamic_tiles(int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, 8);
    __shared__ int ranks[256];
    ranks[block.thread_rank()] = tile.thread_rank();
    tile.sync();
    int sum = 0;
    for (unsigned int r = 0; r < tile.size(); r++) sum += ranks[block.thread_rank() - tile.thread_rank() + r];
    out[3 * block.thread_rank() + 0] = tile.thread_rank();
    out[3 * block.thread_rank() + 1] = tile.size();
    out[3 * block.thread_rank() + 2] = sum;
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(KERNELS, no_extern_c=True)


def _pairwise(a):
    """The sum of each row of a (a power of two wide) in a butterfly's order: halves added
    element by element until one column is left, in float32 as the GPU adds."""
    while a.shape[1] > 1:
        half = a.shape[1] // 2
        a = a[:, :half] + a[:, half:]
    return a[:, 0]


def test_nvcc_compiles_the_kernels(tmp_path):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found on PATH or in /usr/local/cuda/bin")
    said = nvcc_verdict(nvcc, nvcc_accepted(nvcc), KERNELS, tmp_path)
    assert said is None, said


@pytest.mark.parametrize("n, threads", [(1000, 256), (4096, 1024), (77, 64)])
def test_block_sum_reduces_each_warp_then_the_warp_sums(mod, n, threads):
    x = RNG.random(n, dtype=np.float32)
    blocks = -(-n // threads)
    out = gpuarray.to_gpu(np.full(blocks, np.nan, np.float32))
    mod.get_function("block_sum")(gpuarray.to_gpu(x), out, np.int32(n), block=(threads, 1, 1),
                                  grid=(blocks, 1))
    warps = _pairwise(np.pad(x, (0, blocks * threads - n)).reshape(-1, 32))
    want = _pairwise(np.pad(warps.reshape(blocks, -1), ((0, 0), (0, 32 - threads // 32))))
    assert np.array_equal(out.get(), want)


def test_a_tile_of_16_sums_with_shfl_down(mod):
    x = RNG.random(96, dtype=np.float32)
    out = gpuarray.to_gpu(np.full(6, np.nan, np.float32))
    mod.get_function("tile16_sum")(gpuarray.to_gpu(x), out, block=(96, 1, 1))
    assert np.array_equal(out.get(), _pairwise(x.reshape(6, 16)))


def test_scans_in_tiles(mod):
    x = RNG.integers(-50, 50, 64).astype(np.int32)
    f = RNG.random(64, dtype=np.float32)
    out, fout = gpuarray.empty(4 * 64, np.int32), gpuarray.empty(64, np.float32)
    mod.get_function("scans")(gpuarray.to_gpu(x), gpuarray.to_gpu(f), out, fout, block=(64, 1, 1))
    got = out.get().reshape(64, 4)
    tiles = x.reshape(-1, 8)
    inclusive = np.cumsum(tiles, axis=1)
    assert np.array_equal(got[:, 0], inclusive.ravel())
    assert np.array_equal(got[:, 1], (inclusive - tiles).ravel())
    running_max = np.maximum.accumulate(tiles, axis=1)
    assert np.array_equal(got[:, 2], np.pad(running_max[:, :-1], ((0, 0), (1, 0))).ravel())
    assert np.array_equal(got[:, 3], np.cumsum(x.reshape(-1, 32), axis=1).ravel())
    scanned = f.reshape(-1, 32).copy()  # CUDA's order: add the value `step` ranks below
    step = 1
    while step < 32:
        scanned[:, step:] = scanned[:, step:] + scanned[:, :-step].copy()
        step *= 2
    assert np.array_equal(fout.get(), scanned.ravel())


def test_votes_and_bitwise_reductions_in_tiles_of_16(mod):
    x = RNG.integers(0, 100, 64).astype(np.int32)
    x[16:32] = np.maximum(x[16:32], 10)  # one tile where all() holds
    out = gpuarray.empty(6 * 64, np.uint32)
    mod.get_function("votes")(gpuarray.to_gpu(x), out, block=(64, 1, 1))
    got = out.get().reshape(4, 16, 6)
    for tile, v in enumerate(x.reshape(4, 16)):
        bits = lambda p: sum(1 << i for i in range(16) if p[i])  # noqa: E731
        assert (got[tile, :, 0] == bits(v & 1)).all()
        assert (got[tile, :, 1] == int((v > 90).any())).all()
        assert (got[tile, :, 2] == int((v >= 10).all())).all()
        assert (got[tile, :, 3] == np.bitwise_or.reduce(v)).all()
        assert (got[tile, :, 4] == v.min()).all()
        assert list(got[tile, :, 5]) == [bits(v % 4 == v[i] % 4) for i in range(16)]
    assert got[1, 0, 2] == 1


def test_a_coalesced_group_is_the_lanes_that_took_the_branch(mod):
    x = RNG.integers(0, 1000, 64).astype(np.int32)
    out = gpuarray.empty(4 * 64, np.int32)
    mod.get_function("odd_lanes")(gpuarray.to_gpu(x), out, block=(64, 1, 1))
    got = out.get().reshape(64, 4)
    for warp in range(2):
        v = x[32 * warp:32 * (warp + 1)]
        odd = v % 2 == 1
        mine = got[32 * warp:32 * (warp + 1)]
        assert (mine[~odd] == -1).all()
        assert (mine[odd, 0] == odd.sum()).all()
        assert list(mine[odd, 1]) == list(range(odd.sum()))
        assert (mine[odd, 2] == v[odd].sum()).all()
        assert (mine[odd, 3] == v[odd][0]).all()


@pytest.mark.parametrize("n, threads", [(256, 64), (37, 64), (301, 128)])
def test_memcpy_async_fills_shared_memory(mod, n, threads):
    x = RNG.random(3 * n, dtype=np.float32)
    out = gpuarray.to_gpu(np.full(3 * n, np.nan, np.float32))
    mod.get_function("copy_in")(gpuarray.to_gpu(x), out, np.int32(n), np.int32(1),
                                block=(threads, 1, 1), grid=(3, 1), shared=4 * n)
    assert np.array_equal(out.get(), 2 * np.roll(x.reshape(3, n), -1, axis=1).ravel())


def test_dynamic_tiles_of_8(mod):
    out = gpuarray.empty(3 * 72, np.int32)
    mod.get_function("dynamic_tiles")(out, block=(72, 1, 1))
    got = out.get().reshape(72, 3)
    assert list(got[:, 0]) == [t % 8 for t in range(72)]
    assert (got[:, 1] == 8).all() and (got[:, 2] == 28).all()


# ---- the simulator's own: its race check, and what it refuses ---------------------------------------
RACY = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void rotate(const float *in, float *out, int synced) {
    __shared__ float s[64];
    cg::thread_block block = cg::this_thread_block();
    s[block.thread_rank()] = in[block.thread_rank()];
    if (synced) block.sync();
    out[block.thread_rank()] = s[(block.thread_rank() + 1) % block.size()];
}
"""


@pytest.mark.parametrize("synced", [1, 0])
def test_the_race_check_finds_a_missing_block_sync(synced):
    fn = SimSourceModule(RACY, no_extern_c=True).get_function("rotate")
    x, y = sim_gpuarray.to_gpu(np.arange(64, dtype=np.float32)), sim_gpuarray.empty(64, np.float32)
    with settings.changed(racecheck=True):
        if synced:
            fn(x, y, np.int32(1), block=(64, 1, 1))
            assert np.array_equal(y.get(), np.roll(np.arange(64), -1))
            return
        with pytest.raises(sim_drv.LaunchError) as err:
            fn(x, y, np.int32(0), block=(64, 1, 1))
    race = err.value
    assert race.array == "s" and {race.first.line, race.second.line} == {"kernel.cu:7", "kernel.cu:9"}


def test_the_race_check_finds_a_read_of_memcpy_async_before_wait():
    fn = SimSourceModule(KERNELS, no_extern_c=True).get_function("copy_in")
    x, y = sim_gpuarray.to_gpu(np.arange(64, dtype=np.float32)), sim_gpuarray.empty(64, np.float32)
    with settings.changed(racecheck=True):
        fn(x, y, np.int32(64), np.int32(1), block=(64, 1, 1), shared=256)
        with pytest.raises(sim_drv.LaunchError) as err:
            fn(x, y, np.int32(64), np.int32(0), block=(64, 1, 1), shared=256)
    race = err.value
    copy = next(n for n, text in enumerate(KERNELS.splitlines(), 1) if "memcpy_async(block" in text)
    assert race.array == "tile" and f"kernel.cu:{copy}" in {race.first.line, race.second.line}


def test_the_divergence_trace_counts_the_lanes_of_a_coalesced_group():
    """The build instrumented at each basic block compiles a group alive across a warp
    function (it once needed the C++ runtime's exception personality, which it refused)."""
    fn = SimSourceModule(KERNELS, no_extern_c=True).get_function("odd_lanes")
    x = sim_gpuarray.to_gpu(np.arange(32, dtype=np.int32))
    with trace(divergence=True) as t:
        fn(x, sim_gpuarray.empty(4 * 32, np.int32), block=(32, 1, 1))
    assert 0.5 < t["odd_lanes"].lane_efficiency < 1.0  # half the lanes take the branch


def test_grid_sync_is_refused_by_name():
    source = RACY.replace("if (synced) block.sync();", "cg::this_grid().sync();")
    with pytest.raises(NotSimulatedError) as err:
        SimSourceModule(source, no_extern_c=True, cache_dir=False)
    assert err.value.function == "grid_group::sync" and err.value.line == 8
    assert err.value.feature == not_simulated.MEMBERS["grid_group::sync"]


def test_a_cpp_header_inside_extern_c_is_named():
    with pytest.raises(ExternCError) as err:
        SimSourceModule(RACY.replace('extern "C" ', ""), cache_dir=False)
    assert err.value.header == "cooperative_groups.h" and err.value.line == 2
