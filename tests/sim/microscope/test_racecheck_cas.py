"""The race check and the CUDA Programming Guide's atomicCAS loop (blind audit AW).

The Guide's loop starts from a plain read of the address, ``old = *address; do { assumed = old;
old = atomicCAS(address, assumed, f(assumed)); } while (assumed != old);``: the value read is only
a first guess, which the atomicCAS checks (a stale one fails and is retried with what the CAS
returns). So a plain read at a line whose value a thread gave an atomicCAS of the same address as
its compare races with no atomic. A plain read used otherwise (a total other blocks are still
adding to), and a plain write, still race with the atomics.
"""

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings

KERNELS = r"""
__device__ void cas_add(float *address, float val) {
    unsigned int *p = (unsigned int *)address;
    unsigned int old = *p, assumed;                    // the first guess: a plain read
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __float_as_uint(__uint_as_float(assumed) + val));
    } while (assumed != old);
}
__global__ void guide_add(float *sum) {
    if (threadIdx.x % 32 == 0) cas_add(sum, 1.0f);
}
__global__ void guide_add_shared(float *out) {
    __shared__ float s;
    if (threadIdx.x == 0) s = 0.0f;
    __syncthreads();
    cas_add(&s, 1.0f);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}
__global__ void guessed_min(unsigned int *m, const unsigned int *v) {
    unsigned int x = v[blockIdx.x * blockDim.x + threadIdx.x];
    unsigned int old = *(volatile unsigned int *)m, assumed;  // no CAS when it is no larger
    while (x < old) {
        assumed = old;
        old = atomicCAS(m, assumed, x);
        if (old == assumed) break;
    }
}
__global__ void guide_add_then_read(float *sum, float *seen) {
    if (threadIdx.x == 0) {
        cas_add(sum, 1.0f);
        seen[blockIdx.x] = *sum;                       // other blocks are still adding to it
    }
}
__global__ void guide_add_to_zeroed(float *sum) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *sum = 0.0f;   // other blocks add to it meanwhile
    __syncthreads();
    if (threadIdx.x == 0) cas_add(sum, 1.0f);
}
__global__ void count_then_cas_another_value(unsigned int *count, unsigned int *seen) {
    atomicAdd(count, 1u);
    seen[threadIdx.x] = *count;                        // not the compare of the CAS that follows
    atomicCAS(count, 4000000000u, 0u);
}
"""


@pytest.fixture(scope="module")
def mod():
    return SourceModule(KERNELS)


def _checked(fn, *args, **launch):
    with settings.changed(racecheck=True):
        fn(*args, **launch)


def _race(fn, *args, **launch):
    with pytest.raises(drv.LaunchError) as err:
        _checked(fn, *args, **launch)
    assert err.value.kind == "race", err.value
    return err.value


def test_the_guide_s_atomiccas_loop_across_blocks_is_no_race(mod):
    total = gpuarray.zeros(1, np.float32)
    _checked(mod.get_function("guide_add"), total, block=(128, 1, 1), grid=(5, 1))
    assert total.get()[0] == 20


def test_the_guide_s_atomiccas_loop_in_shared_memory_is_no_race(mod):
    out = gpuarray.zeros(2, np.float32)
    _checked(mod.get_function("guide_add_shared"), out, block=(64, 1, 1), grid=(2, 1))
    assert out.get().tolist() == [64, 64]


def test_a_guess_that_skips_the_cas_when_it_cannot_change_anything_is_no_race(mod):
    values = np.arange(1000, 1256, dtype=np.uint32)[::-1].copy()
    m = gpuarray.to_gpu(np.array([0xFFFFFFFF], np.uint32))
    _checked(mod.get_function("guessed_min"), m, gpuarray.to_gpu(values), block=(64, 1, 1),
             grid=(4, 1))
    assert m.get()[0] == 1000


def test_a_plain_read_of_the_total_after_the_cas_loop_still_races(mod):
    total, seen = gpuarray.zeros(1, np.float32), gpuarray.zeros(3, np.float32)
    race = _race(mod.get_function("guide_add_then_read"), total, seen, block=(32, 1, 1),
                 grid=(3, 1))
    assert race.space == "global" and race.first.block != race.second.block
    assert {race.first.line, race.second.line} == {"kernel.cu:7", "kernel.cu:33"}
    assert {race.first.does, race.second.does} == {"updates it atomically", "reads it"}


def test_a_plain_write_against_the_cas_loops_of_other_blocks_still_races(mod):
    race = _race(mod.get_function("guide_add_to_zeroed"), gpuarray.zeros(1, np.float32),
                 block=(32, 1, 1), grid=(3, 1))
    assert "writes it" in {race.first.does, race.second.does}  # with a guess, or with a CAS


def test_a_plain_read_whose_value_is_not_the_cas_s_compare_still_races(mod):
    count, seen = gpuarray.zeros(1, np.uint32), gpuarray.zeros(64, np.uint32)
    race = _race(mod.get_function("count_then_cas_another_value"), count, seen, block=(64, 1, 1))
    assert "kernel.cu:43" in {race.first.line, race.second.line}
    assert {race.first.does, race.second.does} == {"updates it atomically", "reads it"}
