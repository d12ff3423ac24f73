"""PyCUDA's prepared calls (helpers/sim/run/prepared.py): prepare() reads the C types of a
kernel's arguments as Python's struct codes, and each prepared call converts its arguments to
them. How a format is read needs no compile; the calls run on whichever backend helpers.backend
chose, one module for the file."""

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray

SCALE = """
__global__ void scale(float *a, int n, float s) {
    int i = threadIdx.x;
    if (i < n) a[i] = s * i;
}
"""


@pytest.fixture(scope="module")
def scale():
    return SourceModule(SCALE).get_function("scale")


def test_prepared_call_takes_an_int_address_and_sourcemodule_calls_str():
    class Source:  # what a code generator such as cgen hands over
        def __str__(self):
            return "__global__ void twice(float *a) { a[threadIdx.x] *= 2; }"

    func = SourceModule(Source()).get_function("twice")
    a = np.arange(16, dtype=np.float32)
    a_gpu = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(a_gpu, a)
    func.prepare("P")
    func.prepared_call((1, 1), (15, 1, 1), int(a_gpu) + a.itemsize)
    doubled = np.empty_like(a)
    drv.memcpy_dtoh(doubled, a_gpu)
    assert np.array_equal(doubled, np.r_[0, 2 * a[1:]])


def test_arguments_are_converted_to_the_prepared_types(scale):
    a = gpuarray.zeros(8, np.float32)
    address = int(a.gpudata)
    scale.prepare(["P", np.int32, np.float32])  # a struct code and numpy types: "Pif"
    scale.prepared_call((1, 1), (8, 1, 1), address, 5, 0.5)  # Python numbers, converted
    assert a.get().tolist() == [0, 0.5, 1, 1.5, 2, 0, 0, 0]
    scale.prepare("Pif")
    stream = drv.Stream()
    scale.prepared_async_call((1, 1), (8, 1, 1), stream, address, 8, 2)
    stream.synchronize()
    assert a.get().tolist() == [2 * i for i in range(8)]
    seconds = scale.prepared_timed_call((1, 1), (8, 1, 1), address, 8, 1)()
    assert seconds >= 0 and a.get().tolist() == list(range(8))


def test_formats_are_read_as_pycuda_reads_them():
    from helpers.sim.run import prepared

    assert prepared.parse("PNIPP") == [("P", 1), ("N", 1), ("I", 1), ("P", 1), ("P", 1)]
    assert prepared.parse("P12si") == [("P", 1), ("s", 12), ("i", 1)]
    assert prepared.parse("=2i3xf") == [("i", 1), ("i", 1), ("f", 1)]  # padding takes none
    assert prepared.format_of([np.float32, np.dtype(np.int64), gpuarray.vec.float3, "P"]) == \
        "fl12sP"
    values = prepared.convert(prepared.parse("fiPn"), [1.5, 7, 4096, -3], int)
    assert [v.dtype for v in values] == [np.float32, np.int32, np.uintp, np.intp]
    with pytest.raises(ValueError, match="struct codes"):
        prepared.parse("Pz")


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's checks of a prepared call")
def test_a_prepared_call_with_the_wrong_arguments_is_refused():
    from helpers.sim.run import prepared

    items = prepared.parse("P12s")
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        prepared.convert(items, [0], int)
    with pytest.raises(TypeError, match="needs 12 bytes, got 8"):
        prepared.convert(items, [0, b"8 bytes!"], int)
    struct = prepared.convert(items, [0, gpuarray.vec.make_float3(1, 2, 3)], int)[1]
    assert struct.nbytes == 12
