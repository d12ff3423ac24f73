"""An index that went below 0 as an unsigned int (run/wrapped.py): threadIdx.x - 1 for
thread 0 is 4294967295, and the access lands 16 GiB past its array, in no allocation. The fault
names the array and element -1 with the ``wrapped`` field (``index`` what the index held), for a
global, a ``__shared__`` and the ``extern __shared__`` array, on the plain build and under the
race check; a truly wild pointer is still one."""

import numpy as np
import pytest

from helpers.sim import gpuarray
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import ArrayBoundsError, OutOfBoundsError
from helpers.sim.settings import settings

KERNELS = r"""
__global__ void global_read(const float *in, float *out) {
    out[threadIdx.x] = in[threadIdx.x - 1];
}
__global__ void shared_write(float *out) {
    __shared__ float tile[32];
    float *p = tile;                                  // past GCC's bounds check
    p[threadIdx.x - 1] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];
}
__global__ void shared_read(float *out) {
    __shared__ double d[32];
    d[threadIdx.x] = 1.0;
    __syncthreads();
    out[threadIdx.x] = d[threadIdx.x - 2];            // GCC's bounds check catches this one
}
__global__ void extern_read(const float *in, float *out) {
    extern __shared__ float s[];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x - 1];
}
__global__ void bytes_back(const unsigned char *in, unsigned char *out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i - 3];
}
__global__ void wild(const float *in, float *out) {
    const float *p = (const float *)0x100000;
    out[threadIdx.x] = p[threadIdx.x];
}
"""
WRAPPED = 4294967295


@pytest.fixture(scope="module")
def mod():
    return SourceModule(KERNELS)


def _line_of(code):
    return f"kernel.cu:{KERNELS[:KERNELS.index(code)].count(chr(10)) + 1}"


def _raised(launch, racecheck=False, error=OutOfBoundsError):
    with settings.changed(racecheck=racecheck), pytest.raises(error) as err:
        launch()
    return err.value


def _floats():
    return gpuarray.to_gpu(np.ones(32, np.float32)), gpuarray.zeros(32, np.float32)


@pytest.mark.parametrize("racecheck", [False, True])
def test_a_global_read_at_threadidx_minus_1_names_the_array_and_element_minus_1(mod, racecheck):
    x, y = _floats()
    e = _raised(lambda: mod.get_function("global_read")(x, y, block=(32, 1, 1)), racecheck)
    assert (e.kind, e.array, e.element, e.index, e.wrapped, e.space, e.length) == (
        "out of bounds", "in", -1, WRAPPED, True, "global", 32)
    assert (e.is_write, e.thread, e.block, e.line) == (
        False, (0, 0, 0), (0, 0, 0), _line_of("in[threadIdx.x - 1]"))
    start = x.gpudata._block.address
    assert e.allocation == (start, 128) and e.offset == 4 * WRAPPED == e.address - start
    assert (f"a read of in[{WRAPPED}] (global memory): the index is -1 wrapped around as an "
            f"unsigned int (threadIdx.x - 1 for thread 0") in str(e)
    assert "wild pointer" not in str(e)


def test_a_shared_write_through_a_pointer_names_the_shared_array(mod):
    _, y = _floats()
    e = _raised(lambda: mod.get_function("shared_write")(y, block=(32, 1, 1)))
    assert (e.kind, e.array, e.element, e.index, e.wrapped, e.space, e.length) == (
        "out of bounds", "tile", -1, WRAPPED, True, "shared", 32)
    assert (e.is_write, e.thread, e.block, e.line, e.allocation, e.offset) == (
        True, (0, 0, 0), (0, 0, 0), _line_of("p[threadIdx.x - 1] ="), None, 4 * WRAPPED)
    assert f"a write to tile[{WRAPPED}] (shared memory): the index is -1 wrapped" in str(e)


def test_a_fixed_size_array_s_bounds_check_says_the_index_wrapped(mod):
    _, y = _floats()
    e = _raised(lambda: mod.get_function("shared_read")(y, block=(32, 1, 1)),
                error=ArrayBoundsError)
    assert (e.kind, e.element, e.index, e.wrapped, e.length, e.thread, e.line) == (
        "array bounds", WRAPPED - 1, WRAPPED - 1, True, 32, (0, 0, 0),
        _line_of("d[threadIdx.x - 2]"))
    assert str(e).endswith(f"index {WRAPPED - 1} of an array declared double [32]: the index is "
                           f"-2 wrapped around as an unsigned int (an unsigned i - 2 at i = 0 is "
                           f"{WRAPPED - 1}, not -2)")


@pytest.mark.parametrize("racecheck", [False, True])
def test_an_extern_shared_read_names_the_extern_array(mod, racecheck):
    x, y = _floats()
    e = _raised(lambda: mod.get_function("extern_read")(x, y, block=(32, 1, 1), shared=128),
                racecheck)
    assert (e.kind, e.array, e.element, e.index, e.wrapped, e.space, e.length) == (
        "out of bounds", "s", -1, WRAPPED, True, "shared", 32)
    assert (e.is_write, e.thread, e.block, e.line) == (
        False, (0, 0, 0), (0, 0, 0), _line_of("s[threadIdx.x - 1];"))
    assert f"a read of s[{WRAPPED}] (shared memory)" in str(e)


def test_a_byte_array_counts_k_in_bytes(mod):
    x = gpuarray.to_gpu(np.ones(64, np.uint8))
    y = gpuarray.zeros(64, np.uint8)
    e = _raised(lambda: mod.get_function("bytes_back")(x, y, block=(32, 1, 1), grid=(2, 1)))
    assert (e.array, e.element, e.index, e.wrapped, e.length, e.thread, e.block) == (
        "in", -3, (1 << 32) - 3, True, 64, (0, 0, 0), (0, 0, 0))
    assert "an unsigned i - 3 at i = 0 is 4294967293, not -3" in str(e)


def test_a_truly_wild_pointer_is_still_one(mod):
    x, y = _floats()
    e = _raised(lambda: mod.get_function("wild")(x, y, block=(32, 1, 1)))
    assert (e.kind, e.array, e.element, e.wrapped, e.index) == (
        "wild pointer", None, None, False, None)
    assert "a read of address 0x100000, which is not in any allocation" in str(e)
