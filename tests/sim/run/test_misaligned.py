"""A misaligned access, CUDA's "misaligned address": a uint4 or float4 load or store at an
address that is not a multiple of 16 bytes (or an int at one that is not a multiple of 4).

On the plain build x86 refuses g++'s aligned SSE store with a general-protection fault, whose
signal carries no address (it used to be reported as "a read of address 0x0", a wild pointer):
the runtime reads the address from the faulting instruction (include/sim_fault_decode.h), and the
error says misaligned, with the address, the bytes past a multiple of 16 and the allocation, or,
for a pointer of junk bytes, an address that cannot exist (run/report.py). The plain build's CPU
lets most misaligned loads through; the instrumented build (race check, init check, trace) sees
every access's address and size, and stops the first misaligned one, naming its array and
element (include/sim_trace.h). The facts are the error's fields (errors.MisalignedAddressError).
"""

import platform
import sys

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compile.module import ErrorReport
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import LaunchError, MisalignedAddressError, OutOfBoundsError
from helpers.sim.microscope.trace import trace
from helpers.sim.run import report
from helpers.sim.settings import settings

STORE = r"""
__global__ void store16(unsigned char *out) {
    uint4 *dst = (uint4 *)(out + 4) + threadIdx.x;
    dst[0] = make_uint4(1, 2, 3, 4);                  // the misaligned store
}
"""
KERNELS = STORE + r"""
__global__ void load16(const unsigned char *in, unsigned int *out) {
    uint4 v = *((const uint4 *)(in + 4) + threadIdx.x);   // the misaligned load
    out[threadIdx.x] = v.x + v.w;
}
__global__ void shared16(unsigned int *out, int k) {
    __shared__ unsigned int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    uint4 v = *(const uint4 *)(s + k);                // the misaligned shared load
    out[threadIdx.x] = v.x + v.w;
}
__global__ void int_at_2(const unsigned char *in, int *out) {
    out[threadIdx.x] = *(const int *)(in + 2);        // the misaligned int
}
__global__ void int_copied_from_2(const unsigned char *in, int *out) {
    int v;
    memcpy(&v, in + 2, sizeof v);                     // bytes copied: any address will do
    out[threadIdx.x] = v;
}
__global__ void junk(float *out, unsigned long long bits) {
    out[threadIdx.x] = ((const float *)bits)[threadIdx.x];   // the junk pointer
}
"""
# the other kernels a module may hold: a module with barriers runs its threads as fibers, one
# with __device__ functions keeps threadIdx.x in a register (include/sim_launch.h)
OTHERS = {"alone": "",
          "with a barrier": "__global__ void other(int *o) { __syncthreads(); o[0] = 1; }\n",
          "with a __device__ function": "__device__ int twice(int v) { return 2 * v; }\n"
                                        "__global__ void other(int *o) { o[0] = twice(o[0]); }\n"}
JUNK = 0xFEFEFEFEFEFEFEFE  # a pointer made of the bytes an unwritten local holds
X86_LINUX = platform.machine() == "x86_64" and sys.platform == "linux"


def line_of(source, marker):
    lines = source.lstrip("\n").splitlines()
    return f"mis.cu:{next(n for n, t in enumerate(lines, 1) if marker in t)}"


def compiled(source):
    return SourceModule('#line 1 "mis.cu"\n' + source.lstrip("\n"))


@pytest.fixture(scope="module")
def mod():
    return compiled(KERNELS)


def raised(launch, cls=LaunchError, **checks):
    with settings.changed(**checks), pytest.raises(cls) as caught:
        launch()
    return caught.value


# ---- the plain build ---------------------------------------------------------------------------
@pytest.mark.skipif(not X86_LINUX, reason="x86-64 refuses an aligned SSE store; Arm64 does not")
@pytest.mark.parametrize("kernels", [STORE, KERNELS], ids=["one kernel", "several kernels"])
@pytest.mark.parametrize("other", OTHERS)
def test_a_misaligned_uint4_store_says_misaligned_address(kernels, other):
    out = gpuarray.zeros(4096, np.uint8)
    source = kernels.lstrip("\n") + OTHERS[other]
    err = raised(lambda: compiled(source).get_function("store16")(out, block=(32, 1, 1)),
                 MisalignedAddressError)
    assert (err.kind, err.alignment, err.misalignment, err.size, err.is_write) == (
        "misaligned address", 16, 4, 16, True)
    assert (err.thread, err.block, err.line) == ((0, 0, 0), (0, 0, 0), line_of(source, "the mis"))
    assert err.allocation == (int(out.gpudata), 4096) and err.offset == 4
    assert err.address == int(out.gpudata) + 4
    message = str(err)
    assert message.startswith("cuLaunchKernel failed: misaligned address in kernel 'store16'")
    assert "a write to address" in message and "4 bytes past a multiple of 16" in message
    assert "needs an address that is a multiple of 16 bytes" in message
    assert "address 0x0," not in message


@pytest.mark.skipif(not X86_LINUX, reason="x86-64's addresses that cannot exist")
@pytest.mark.parametrize("checks", [{}, {"racecheck": True}], ids=["plain", "race-checked"])
def test_a_pointer_of_junk_bytes_is_an_address_that_cannot_exist(mod, checks):
    out = gpuarray.zeros(32, np.float32)
    err = raised(lambda: mod.get_function("junk")(out, np.uint64(JUNK), block=(32, 1, 1)),
                 OutOfBoundsError, **checks)
    assert (err.kind, err.address, err.is_write) == ("wild pointer", JUNK, False)
    assert f"a read of address 0x{JUNK:x}, which cannot exist" in str(err)


def test_a_refused_access_whose_address_was_not_read_names_both_causes():
    # an instruction the runtime does not decode (AVX-512's, a string instruction's)
    err = ErrorReport(refused=1, decoded=0, is_write=-1, file=b"mis.cu", line=3)
    error = report.error(None, "k", "FAULT", err)
    assert type(error) is LaunchError and error.kind == "misaligned or impossible address"
    assert error.address is None and error.line == "mis.cu:3"
    assert "needs an address that is a multiple of 16 bytes" in str(error)
    assert "an address that cannot exist" in str(error)


# ---- the instrumented build --------------------------------------------------------------------
CHECKS = [{"racecheck": True}, {"initcheck": True}]


@pytest.mark.parametrize("checks", CHECKS, ids=["race check", "init check"])
def test_a_misaligned_uint4_load_is_stopped_and_named_where_it_was_read(mod, checks):
    data, out = gpuarray.zeros(4096, np.uint8), gpuarray.zeros(32, np.uint32)
    err = raised(lambda: mod.get_function("load16")(data, out, block=(32, 1, 1)),
                 MisalignedAddressError, **checks)
    assert (err.array, err.element, err.space, err.offset) == ("in", 4, "global", 4)
    assert (err.alignment, err.misalignment, err.size, err.is_write) == (16, 4, 16, False)
    assert (err.thread, err.line) == ((0, 0, 0), line_of(KERNELS, "the misaligned load"))
    assert err.address == int(data.gpudata) + 4
    assert str(err).startswith("cuLaunchKernel failed: misaligned address: in kernel 'load16'")
    assert "reads 16 bytes at in[4] (global memory), 4 bytes past a multiple of 16" in str(err)


def test_a_misaligned_shared_load_names_the_shared_array(mod):
    err = raised(lambda: mod.get_function("shared16")(gpuarray.zeros(64, np.uint32),
                                                      np.int32(1), block=(64, 1, 1)),
                 MisalignedAddressError, racecheck=True)
    assert (err.space, err.array, err.element, err.misalignment, err.address) == (
        "shared", "s", 1, 4, None)


def test_an_int_needs_a_multiple_of_4_but_its_bytes_may_be_copied_from_anywhere(mod):
    data, out = gpuarray.to_gpu(np.arange(64, dtype=np.uint8)), gpuarray.zeros(32, np.int32)
    err = raised(lambda: mod.get_function("int_at_2")(data, out, block=(32, 1, 1)),
                 MisalignedAddressError, racecheck=True)
    assert (err.array, err.element, err.alignment, err.misalignment, err.size) == (
        "in", 2, 4, 2, 4)
    assert "load or store of 4 bytes needs an address that is a multiple of 4" in str(err)
    with settings.changed(racecheck=True):
        mod.get_function("int_copied_from_2")(data, out, block=(32, 1, 1))
    assert (out.get() == np.frombuffer(bytes(range(2, 6)), np.int32)[0]).all()


def test_a_trace_stops_a_misaligned_access_too(mod):
    data, out = gpuarray.zeros(4096, np.uint8), gpuarray.zeros(32, np.uint32)
    with trace(accesses=0) as t, pytest.raises(MisalignedAddressError) as caught:
        mod.get_function("load16")(data, out, block=(32, 1, 1))
    assert (caught.value.array, caught.value.element) == ("in", 4) and not t.launches
    assert isinstance(caught.value, drv.LaunchError)
