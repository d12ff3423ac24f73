"""A loaded module (compile/module.py): Python's mirrors of the runtime's structs and status
codes, and what it reads of each kernel."""

import ctypes
import gc
import os
import shutil

import numpy as np
import pytest

from helpers.sim import driver as drv, gpuarray
from helpers.sim.compile.module import Module, kernel_shared_arrays, shared_variables
from helpers.sim.compiler import SourceModule
from helpers.sim.run.launch import Function
from helpers.sim.settings import settings


def test_python_mirrors_the_runtime_structs_and_status_codes():
    from helpers.sim.run import report as launch_report
    from helpers.sim.compile import module

    lib = SourceModule("__global__ void k(int *x) { x[0] = 1; }").module.lib
    for c_name, mirror in module.MIRRORS.items():
        assert lib.sim_abi_size(c_name.encode()) == ctypes.sizeof(mirror), c_name
    codes = module.status_codes(lib)
    assert codes["OK"] == 0 and len(codes) == len(set(codes.values()))
    assert set(launch_report.STATUS_TEXT) <= set(codes) - {"OK", "INTERRUPTED"}


def test_shared_memory_is_counted_kernel_by_kernel():
    src = "\n".join(f"__global__ void k{i}(float *x) {{ __shared__ float s[10000]; "
                     f"s[threadIdx.x] = {i}; __syncthreads(); x[{i}] = s[1]; }}" for i in range(2))
    mod = SourceModule(src)  # 40 KB each: fine, though 80 KB together
    assert {k.name: k.static_shared for k in mod.module.kernels.values()} == {"k0": 40000, "k1": 40000}


def test_each_kernel_may_touch_its_own_and_the_common_shared_arrays_not_the_others():
    """The bounds check's table (include/sim_bounds.h): per kernel, the thread-locals its blocks
    may touch, by their offset in the module's thread-local block."""
    mod = SourceModule("__shared__ float common_sums[8];\n" + "\n".join(
        f"__global__ void k{i}(float *x) {{ __shared__ float s{i}[{4 + i}]; s{i}[threadIdx.x] = "
        f"x[0]; common_sums[threadIdx.x] = 1; __syncthreads(); x[1] = s{i}[1] + common_sums[2]; }}"
        for i in range(2)))
    arrays = kernel_shared_arrays(mod.module.path, mod.module.kernels)
    named = {k: sorted((symbol, size) for _, size, symbol in rows) for k, rows in arrays.items()}
    assert named == {"k0": [("_ZL11common_sums", 32), ("_ZZ2k0E2s0", 16)],
                     "k1": [("_ZL11common_sums", 32), ("_ZZ2k1E2s1", 20)]}
    assert all(rows == sorted(rows) for rows in arrays.values())  # by offset, for a search


def test_kernels_without_warp_functions_run_as_loops_over_their_threads():
    """A kernel without barriers, and one split at its barriers (split.py), run a block as a
    loop; one with a warp function keeps a fiber a thread."""
    mod = SourceModule("""
__global__ void plain(int *x) { x[threadIdx.x] = 1; }
__global__ void barrier(int *x) { __syncthreads(); x[threadIdx.x] = 1; }
__global__ void vote(int *x) { x[threadIdx.x] = __any_sync(0xffffffffu, threadIdx.x == 3); }""")
    assert {name: k.fibers for name, k in mod.module.kernels.items()} == {
        "plain": False, "barrier": False, "vote": True}


@pytest.mark.parametrize("helper", ["", "__device__ unsigned twice(unsigned v) { return 2 * v; }"])
def test_a_plain_loop_gives_each_thread_its_built_in_variables(helper):
    """Without __device__ functions a plain module's kernels read them from variables of the
    module, with them from the Frame (sim_runtime.h): either way, each thread its own."""
    scale = "twice" if helper else ""
    mod = SourceModule(helper + """
__global__ void ids(unsigned *out) {
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned *o = out + 12 * (b * blockDim.x * blockDim.y * blockDim.z + t);
    dim3 v[4] = {threadIdx, blockIdx, blockDim, gridDim};
    for (int i = 0; i < 4; i++) { o[3 * i] = %s(v[i].x); o[3 * i + 1] = v[i].y; o[3 * i + 2] = v[i].z; }
}""" % scale)
    block, grid = (4, 3, 2), (2, 3, 2)
    out = gpuarray.zeros(12 * 24 * 12, np.uint32)
    mod.get_function("ids")(out, block=block, grid=grid)
    got = out.get().reshape(12, 24, 4, 3)
    want = np.array([[[tx, ty, tz], [bx, by, bz], list(block), list(grid)]
                     for bz in range(2) for by in range(3) for bx in range(2)
                     for tz in range(2) for ty in range(3) for tx in range(4)]).reshape(12, 24, 4, 3)
    want[..., 0] *= 2 if helper else 1
    assert np.array_equal(got, want)


def test_a_library_changed_on_disk_under_a_loaded_module_is_refused_before_it_runs(tmp_path):
    """Truncated in place, the mapped library would crash the process (SIGBUS) at the next
    launch; replaced by a new file (as the cache replaces one), the loaded copy is intact."""
    built = SourceModule("__global__ void one(int *x) { x[threadIdx.x] = 1; }").path
    x = gpuarray.zeros(4, np.int32)

    def loaded(name):  # a module of its own, loaded from a copy of the built library
        path = tmp_path / name
        shutil.copyfile(built, path)
        module = Module(path)
        return path, Function(module, module.kernels["one"])

    path, replaced = loaded("replaced.so")
    shutil.copyfile(built, tmp_path / "new.so")
    os.replace(tmp_path / "new.so", path)
    replaced(x, block=(4, 1, 1))
    assert (x.get() == 1).all()
    path, truncated = loaded("truncated.so")
    with open(path, "r+b") as f:
        f.truncate(4096)
    with pytest.raises(drv.LogicError, match="changed on disk after it was loaded.*Compile the "
                                             "source again"):
        truncated(x, block=(4, 1, 1))


def test_shared_memory_is_never_zeroed_a_block_reads_the_fill_where_it_wrote_nothing():
    """A GPU leaves shared memory holding whatever was there; a fresh thread's memory is zeroed.
    Before each block the simulator fills the learner's __shared__ arrays (found in the module,
    shared_variables) and the dynamic shared memory with FF 7F FF 7F...: NaN as a float, a double
    or a half, 0x7FFF7FFF as an int, so that reading an element no thread wrote shows."""
    mod = SourceModule(r"""
    __global__ void half_written(float *out, int *iout) {
        __shared__ float s[64];
        __shared__ int t[64];
        if (threadIdx.x < 32 && blockIdx.x == 0) { s[threadIdx.x] = 1.0f; t[threadIdx.x] = 5; }
        __syncthreads();
        out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
        iout[blockIdx.x * 64 + threadIdx.x] = t[threadIdx.x];
    }
    __global__ void dynamic(double *out) {
        extern __shared__ double d[];
        if (threadIdx.x < 16) d[threadIdx.x] = 2.0;
        __syncthreads();
        out[threadIdx.x] = d[threadIdx.x];
    }""")
    assert [size for _, size in shared_variables(mod.path)] == [256, 256]
    out, iout = gpuarray.zeros((4, 64), np.float32), gpuarray.zeros((4, 64), np.int32)
    with settings.changed(workers=1):  # one worker runs all four blocks: each is filled anew
        mod.get_function("half_written")(out, iout, block=(64, 1, 1), grid=(4, 1))
    got, igot = out.get(), iout.get()
    assert (got[0, :32] == 1).all() and (igot[0, :32] == 5).all()
    fill = np.full(1, 0x7FFF7FFF, np.uint32)
    assert (got.view(np.uint32)[0, 32:] == fill).all() and (got.view(np.uint32)[1:] == fill).all()
    assert (igot[:, 32:] == 0x7FFF7FFF).all() and (igot[1:] == 0x7FFF7FFF).all()
    d = gpuarray.zeros(32, np.float64)
    mod.get_function("dynamic")(d, block=(32, 1, 1), shared=32 * 8)
    assert (d.get()[:16] == 2).all() and np.isnan(d.get()[16:]).all()


def test_small_device_and_constant_variables_take_device_memory_too():
    """A GPU's module load takes memory for every __device__ and __constant__ variable, however
    small (the simulator once charged only arrays of 64 KiB or more); the runtime's own variables
    and the C++ library's are not the learner's and take nothing, in a namespace of the learner's
    or without extern "C" as well."""
    gc.collect()   # what earlier tests left for the collector is given back before counting
    free = drv.mem_get_info()[0]
    mod = SourceModule("__device__ float table[1000];\n__constant__ float weights[16];\n"
                       "__device__ int count;\nnamespace lab { __device__ double sums[3]; }\n"
                       "__global__ void k(float *x) { x[0] = table[1] + weights[2] + count"
                       " + lab::sums[0]; }\n")
    assert free - drv.mem_get_info()[0] == 4000 + 64 + 4 + 24
    assert mod.module.device_arrays == [("table", 4000), ("weights", 64), ("sums", 24),
                                        ("count", 4)]
    plain = SourceModule("namespace lab { __device__ short s[5]; }\n"
                         "__global__ void k(short *x) { x[0] = lab::s[1]; }\n", no_extern_c=True)
    assert plain.module.device_arrays == [("_ZN3lab1sE", 10)]
    del mod, plain
    gc.collect()
    assert drv.mem_get_info()[0] == free


def test_device_arrays_take_device_memory_while_their_module_is_loaded():
    """As on a GPU, which holds a module's __device__ arrays in its memory from the load."""
    gc.collect()   # a module an earlier test left for the collector frees its arrays now, not below
    used = drv.mem_get_info()[1] - drv.mem_get_info()[0]
    array = "__device__ float {}[{}];\n__global__ void k(float *x) {{ x[0] = {}[1]; }}\n"
    with settings.changed(device_memory=used + (64 << 20)):
        first = SourceModule(array.format("first", 8 << 20, "first"))     # 32 MiB
        assert drv.mem_get_info()[0] == 32 << 20
        with pytest.raises(drv.MemoryError, match=r"^cuModuleLoadDataEx failed: out of memory: "
                           r"the module's __device__ array 'second' takes 41,943,040 bytes, and "
                           r"the simulated device has 33,554,432 .*Make it smaller, or allocate "
                           r"it when the program runs"):
            SourceModule(array.format("second", 10 << 20, "second"))    # 40 MiB
        del first
        gc.collect()
        assert drv.mem_get_info()[0] == 64 << 20
